//! A link's random and scripted losses (a child module of `net::link`).

use crate::net::link_config::LossSpec;
use crate::packet::Packet;
use crate::results::DropCause;
use crate::rng::SimRng;

/// A link's loss model. The scripted list is boxed so that the enum has a plain tag: the
/// hot path's `Loss::None` test is one compare, not a niche decoding.
#[derive(Clone, Debug)]
pub(super) enum Loss {
    None,
    Bernoulli(f64),
    Scripted(Box<ScriptedLoss>),
}

/// Scripted losses: the data packets (0-based, in arrival order) to drop.
#[derive(Clone, Debug)]
pub(super) struct ScriptedLoss {
    drop: Vec<u64>,
    next: usize,
    seen: u64,
}

impl Loss {
    /// The model a link's `loss` option describes.
    pub(super) fn of(spec: &LossSpec) -> Loss {
        match spec {
            LossSpec::None => Loss::None,
            LossSpec::Bernoulli(p) => Loss::Bernoulli(*p),
            LossSpec::Scripted(v) => {
                let mut drop = v.clone();
                drop.sort_unstable();
                drop.dedup();
                Loss::Scripted(Box::new(ScriptedLoss {
                    drop,
                    next: 0,
                    seen: 0,
                }))
            }
        }
    }

    /// Whether `pkt` is lost on the link, and why (`rng`: the link's loss stream).
    #[inline(always)]
    pub(super) fn verdict(&mut self, pkt: &Packet, rng: &mut SimRng) -> Option<DropCause> {
        match self {
            Loss::None => None,
            Loss::Bernoulli(p) => rng.bernoulli(*p).then_some(DropCause::RandomLoss),
            Loss::Scripted(sc) => {
                if !pkt.is_data() {
                    return None;
                }
                let i = sc.seen;
                sc.seen += 1;
                if sc.next < sc.drop.len() && sc.drop[sc.next] == i {
                    sc.next += 1;
                    Some(DropCause::ScriptedLoss)
                } else {
                    None
                }
            }
        }
    }
}
