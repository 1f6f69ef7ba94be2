//! Ready-made scenario documents (stub).
