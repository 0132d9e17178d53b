import { format } from "./format.js";

const TAX = 0.2;

/**
 * Cart holds line items.
 */
export class Cart {
  items = [];
  static #count = 0;

  /** Adds an item. */
  add(item) {
    this.items.push(item);
  }

  // total sums the items.
  get total() {
    return this.items.reduce((a, b) => a + b.price, 0);
  }

  onClick = (event) => {
    this.add(event.item);
  };
}

/** Formats a price. */
export function price(cents) {
  function pad(n) {
    return String(n).padStart(2, "0");
  }
  return format(cents / 100) + pad(cents % 100);
}

export const double = (x) => x * 2;

const legacy = function () {
  return TAX;
};

export default class {
  run() {}
}

module.exports = { Cart, price };
