//! Unit strings ("10Mbps", "5ms", "1GB", "333p") (stub).
