//! esa-core placeholder
