//! esa-host (in progress)
