//! Typed indices into the simulation's tables.

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
        pub struct $name(pub u32);
        impl $name {
            /// The index as a `usize`, for table lookups.
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A node (host or router).
    NodeId
);
id_type!(
    /// A unidirectional link.
    LinkId
);
id_type!(
    /// A flow as declared in the scenario.
    FlowId
);
id_type!(
    /// An endpoint (one side of a transport: sender or receiver).
    EndpointId
);
