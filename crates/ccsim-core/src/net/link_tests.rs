//! Unit tests of `Link` (a child module of `net::link`).

use super::*;
use crate::net::droptail::DropTail;
use crate::net::queue::QueueLimit;

#[test]
fn a_link_is_up_until_it_fails_and_again_once_restored() {
    let mut l = Link::new(
        LinkId(0),
        NodeId(0),
        NodeId(1),
        Rate::mbps(10),
        Dur::from_millis(10),
        QueueDisc::DropTail(DropTail::new(QueueLimit::Packets(10))),
        &LossSpec::None,
        LinkModel::PerHop,
        1,
        "link:test",
    );
    assert!(l.is_up());
    l.set_up(false);
    assert!(!l.is_up());
    l.set_up(true);
    assert!(l.is_up());
}
