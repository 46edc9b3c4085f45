//! The store's integration tests, one binary: the SQLite store on a real file (`file`) and the
//! explorer snapshot decoder's properties (`snapshot_props`).

mod file;
mod snapshot_props;
