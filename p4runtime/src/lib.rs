//! p4runtime-proto (in progress)
