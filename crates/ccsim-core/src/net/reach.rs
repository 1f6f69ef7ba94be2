//! Which nodes can reach which over directed links, for checking flows' endpoints.
//!
//! A search per flow and direction costs O(flows × (V + E)): 14 % of a 4 096-flow
//! dumbbell's set-up before issue #24. Here one pass finds the strongly connected
//! components (Tarjan 1972, iteratively), which answers every query between two nodes of
//! one component, and every query a topological order rules out, in O(1). That covers
//! networks whose links all go both ways, and the return direction of every flow (a node
//! that reaches another and is reached back by it is in its component). Only what is left
//! (a one-way network where the order allows a path) searches from the source, and the
//! last source's search is kept, so consecutive flows from one node search once.

/// Reachability between the nodes of a directed graph.
#[derive(Clone, Debug)]
pub struct Reachability {
    /// Successors of each node, in compressed rows: `succ[start[v]..start[v + 1]]`.
    start: Vec<usize>,
    succ: Vec<usize>,
    /// Each node's strongly connected component, numbered in reverse topological order
    /// (Tarjan's order of completion): a component reaches only lower-numbered ones.
    comp: Vec<u32>,
    /// The last search: its source and the nodes it reached (`seen[v] == stamp`).
    searched: Option<usize>,
    seen: Vec<u32>,
    stamp: u32,
}

const UNSEEN: u32 = u32::MAX;

impl Reachability {
    /// The reachability of `n` nodes joined by directed `edges` (from, to), both below `n`.
    pub fn new(n: usize, edges: &[(usize, usize)]) -> Reachability {
        let mut start = vec![0usize; n + 1];
        for &(a, _) in edges {
            start[a + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut succ = vec![0usize; edges.len()];
        for &(a, b) in edges {
            succ[fill[a]] = b;
            fill[a] += 1;
        }
        let comp = components(&start, &succ);
        Reachability {
            start,
            succ,
            comp,
            searched: None,
            seen: vec![0; n],
            stamp: 0,
        }
    }

    /// Whether some path of edges leads from `from` to `to` (a node reaches itself).
    pub fn reaches(&mut self, from: usize, to: usize) -> bool {
        let (cf, ct) = (self.comp[from], self.comp[to]);
        if cf == ct {
            return true;
        }
        if ct > cf {
            return false; // `to`'s component completed later: it is not downstream
        }
        if self.searched != Some(from) {
            self.search(from);
        }
        self.seen[to] == self.stamp
    }

    /// Mark every node `from` reaches with a new stamp.
    fn search(&mut self, from: usize) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // The stamps wrapped: forget every old mark.
            self.seen.fill(0);
            self.stamp = 1;
        }
        self.searched = Some(from);
        let mut stack = vec![from];
        self.seen[from] = self.stamp;
        while let Some(v) = stack.pop() {
            for &w in &self.succ[self.start[v]..self.start[v + 1]] {
                if self.seen[w] != self.stamp {
                    self.seen[w] = self.stamp;
                    stack.push(w);
                }
            }
        }
    }
}

/// Tarjan's strongly connected components, without recursion (a 100 000-link chain would
/// overflow the stack): each node's component, numbered in the order they complete.
fn components(start: &[usize], succ: &[usize]) -> Vec<u32> {
    let n = start.len() - 1;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut comp = vec![UNSEEN; n];
    let mut open = Vec::new(); // visited nodes without a component yet
    let mut calls: Vec<(usize, usize)> = Vec::new(); // (node, its next edge)
    let (mut next_index, mut next_comp) = (0u32, 0u32);
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        open.push(root);
        calls.push((root, start[root]));
        while let Some(&mut (v, ref mut e)) = calls.last_mut() {
            if *e < start[v + 1] {
                let w = succ[*e];
                *e += 1;
                if index[w] == UNSEEN {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    open.push(w);
                    calls.push((w, start[w]));
                } else if comp[w] == UNSEEN {
                    // w is open: on the path being searched, or in its component
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = open.pop() {
                    comp[w] = next_comp;
                    if w == v {
                        break;
                    }
                }
                next_comp += 1;
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SimRng;

    fn naive(n: usize, edges: &[(usize, usize)], from: usize, to: usize) -> bool {
        let mut seen = vec![false; n];
        let mut stack = vec![from];
        while let Some(v) = stack.pop() {
            if v == to {
                return true;
            }
            if std::mem::replace(&mut seen[v], true) {
                continue;
            }
            stack.extend(edges.iter().filter(|e| e.0 == v).map(|e| e.1));
        }
        false
    }

    #[test]
    fn agrees_with_a_search_per_query_on_random_graphs() {
        let mut rng = SimRng::stream(24, "reachability");
        let mut searched = 0;
        for _ in 0..400 {
            let n = 1 + rng.range_inclusive(0, 15) as usize;
            let m = rng.range_inclusive(0, 2 * n as u64) as usize;
            let edges: Vec<(usize, usize)> = (0..m)
                .map(|_| {
                    let a = rng.range_inclusive(0, n as u64 - 1) as usize;
                    let b = rng.range_inclusive(0, n as u64 - 1) as usize;
                    (a, b)
                })
                .collect();
            let mut r = Reachability::new(n, &edges);
            // Queries in random order, so that cached searches are reused and replaced.
            for _ in 0..3 * n * n {
                let a = rng.range_inclusive(0, n as u64 - 1) as usize;
                let b = rng.range_inclusive(0, n as u64 - 1) as usize;
                assert_eq!(
                    r.reaches(a, b),
                    naive(n, &edges, a, b),
                    "{a} -> {b} in {edges:?}"
                );
            }
            searched += usize::from(r.searched.is_some());
        }
        assert!(searched > 50, "few queries needed a search: {searched}");
    }

    #[test]
    fn a_long_one_way_chain_needs_no_recursion() {
        let n = 200_000;
        let edges: Vec<(usize, usize)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let mut r = Reachability::new(n, &edges);
        assert!(r.reaches(0, n - 1));
        assert!(!r.reaches(n - 1, 0));
        assert!(r.reaches(5, 5));
    }
}
