//! esa-core's integration tests, one binary: `cargo test -p esa-core --test all`
//! (one module per former test file; a module alone: `... --test all <module>::`).

mod pool;
mod pool_tree;
mod sim;
mod wire;
