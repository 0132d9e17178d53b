//! A tiny key-value store.

use std::collections::HashMap;
use std::fmt;

const LIMIT: usize = 64;

/// Store keeps values by key.
#[derive(Debug, Default)]
pub struct Store {
    items: HashMap<String, String>,
}

impl Store {
    /// Creates an empty store.
    pub fn new() -> Self {
        Store { items: HashMap::new() }
    }

    /// Gets a value.
    pub fn get(&self, key: &str) -> Option<&String> {
        self.items.get(key)
    }
}

impl fmt::Display for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} items", self.items.len())
    }
}

/// Errors of the store.
pub enum Error {
    NotFound,
    Full(usize),
}

/// Backend persists a store.
pub trait Backend {
    fn save(&self, s: &Store) -> Result<(), Error>;

    fn name(&self) -> &str {
        "backend"
    }
}

pub mod util {
    pub fn clamp(n: usize) -> usize {
        n.min(super::LIMIT)
    }
}

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

type Map = HashMap<String, String>;

fn main() {
    let s = Store::new();
    println!("{}", s);
}
