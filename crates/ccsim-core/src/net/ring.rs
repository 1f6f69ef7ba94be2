//! A FIFO ring buffer with power-of-two capacity: index arithmetic is a mask, growth
//! doubles and is rare (rings are sized by the largest queue seen), so the per-packet path
//! neither allocates nor branches on wrap-around.

/// FIFO of `Copy` values.
#[derive(Clone, Debug)]
pub struct Ring<T: Copy + Default> {
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy + Default> Ring<T> {
    /// An empty ring with room for at least `cap` items.
    pub fn with_capacity(cap: usize) -> Ring<T> {
        Ring {
            buf: vec![T::default(); cap.next_power_of_two().max(4)],
            head: 0,
            len: 0,
        }
    }

    #[inline]
    fn mask(&self) -> usize {
        self.buf.len() - 1
    }

    /// Number of items.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Items it holds before it must grow.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Whether the ring is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Append at the back.
    #[inline]
    pub fn push_back(&mut self, v: T) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let m = self.mask();
        self.buf[(self.head + self.len) & m] = v;
        self.len += 1;
    }

    /// Remove from the front.
    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.buf[self.head];
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(v)
    }

    /// The front item.
    #[inline]
    pub fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[self.head])
    }

    /// Item `i` from the front (must be `< len`).
    #[inline]
    pub fn get(&self, i: usize) -> &T {
        debug_assert!(i < self.len);
        &self.buf[(self.head + i) & self.mask()]
    }

    /// Items from front to back.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).map(move |i| self.get(i))
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.buf);
        let mut buf = Vec::with_capacity(old.len() * 2);
        for i in 0..self.len {
            buf.push(old[(self.head + i) & (old.len() - 1)]);
        }
        buf.resize(old.len() * 2, T::default());
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_order_survives_growth_and_wrap_around() {
        let mut r = Ring::with_capacity(4);
        let mut expect = std::collections::VecDeque::new();
        for i in 0..1000u32 {
            r.push_back(i);
            expect.push_back(i);
            if i % 3 == 0 {
                assert_eq!(r.pop_front(), expect.pop_front());
            }
        }
        assert_eq!(r.len(), expect.len());
        assert!(r.iter().copied().eq(expect.iter().copied()));
        while let Some(v) = r.pop_front() {
            assert_eq!(Some(v), expect.pop_front());
        }
        assert!(r.is_empty() && r.front().is_none());
    }
}
