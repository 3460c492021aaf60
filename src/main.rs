//! The `provex` command line.
fn main() {}
