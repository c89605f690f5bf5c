//! The one randomness source of the probes: SplitMix64, seeded by the caller.
//! Same seed, same stream, on every platform (no floating point, no `usize`
//! width in the arithmetic).

/// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit state advanced by a fixed
/// odd constant, each output a bijective mix of the state.
#[derive(Clone, Debug)]
pub(crate) struct Rng {
    state: u64,
}

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// A number in `0..n` (0 when `n` is 0), by the multiply-shift method.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// True with probability `num / den`.
    pub(crate) fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    /// One item of a non-empty slice (the first when empty is impossible).
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }
}

/// SplitMix64's output function, also used to derive a stream's seed.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The `n`th draw of stream `stream` under `seed`: the same numbers in, the
/// same number out, without keeping a generator (what the faults of
/// `intercept` decide with, a draw per fault and matched request).
pub(crate) fn draw(seed: u64, stream: u64, n: u64) -> u64 {
    mix(seed ^ mix(stream.wrapping_add(0x9E37_79B9_7F4A_7C15) ^ mix(n)))
}

/// FNV-1a over a string, to derive a per-tool stream from a name.
pub(crate) fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_is_fixed() {
        // Reference values of SplitMix64 seeded with 1234567.
        let mut r = Rng::new(1_234_567);
        assert_eq!(r.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(r.next_u64(), 3_203_168_211_198_807_973);
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..100 {
            assert_eq!(a.below(10), b.below(10));
        }
        assert!((0..1000).all(|_| a.below(3) < 3));
        assert_eq!(a.below(0), 0);
    }
}
