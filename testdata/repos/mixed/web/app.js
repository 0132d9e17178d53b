// Fetch a key from the store.
export async function getKey(key) {
  const res = await fetch(`/get?key=${encodeURIComponent(key)}`);
  return res.text();
}

export const double = (x) => x * 2;
