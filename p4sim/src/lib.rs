//! p4sim placeholder
