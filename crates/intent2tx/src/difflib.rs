//! Python's `difflib.SequenceMatcher(None, a, b).ratio()` over characters (code points), the text
//! similarity the authors' retriever falls back to. Modelled step for step on CPython's
//! `find_longest_match` / `get_matching_blocks`, including the "autojunk" heuristic (when `b` has
//! 200 or more characters, characters occurring more than `len(b) / 100 + 1` times are not used
//! to seed matches, though matches may still extend over them), because it changes the ratio of
//! long intents.

use std::collections::HashMap;

/// `SequenceMatcher(None, a, b).ratio()`: `2·M / (len(a) + len(b))`, M the characters in matching
/// blocks; 1.0 for two empty strings.
pub(crate) fn ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    let mut b2j: HashMap<char, Vec<usize>> = HashMap::new();
    for (j, c) in b.iter().enumerate() {
        b2j.entry(*c).or_default().push(j);
    }
    if b.len() >= 200 {
        let ntest = b.len() / 100 + 1;
        b2j.retain(|_, js| js.len() <= ntest);
    }
    let mut matched = 0usize;
    let mut queue = vec![(0, a.len(), 0, b.len())];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = longest_match(&a, &b, &b2j, alo, ahi, blo, bhi);
        if k > 0 {
            matched += k;
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    2.0 * matched as f64 / total as f64
}

/// An upper bound of [`ratio`] from character counts alone (difflib's `quick_ratio`, with every
/// non-ASCII character in one bucket, which can only raise it): `2·Σ min(count_a, count_b) / total`.
pub(crate) fn quick_bound(a: &Histogram, b: &Histogram) -> f64 {
    let total = a.len + b.len;
    if total == 0 {
        return 1.0;
    }
    let common: u32 = a
        .counts
        .iter()
        .zip(b.counts.iter())
        .map(|(x, y)| u32::from(*x.min(y)))
        .sum();
    2.0 * f64::from(common) / total as f64
}

/// Character counts of a text, for [`quick_bound`].
#[derive(Debug, Clone)]
pub(crate) struct Histogram {
    counts: [u16; 128],
    len: usize,
}

impl Histogram {
    pub(crate) fn of(text: &str) -> Self {
        let mut counts = [0u16; 128];
        let mut len = 0;
        for c in text.chars() {
            let i = if (c as u32) < 127 { c as usize } else { 127 };
            counts[i] = counts[i].saturating_add(1);
            len += 1;
        }
        Self { counts, len }
    }
}

#[allow(clippy::too_many_arguments)]
fn longest_match(
    a: &[char],
    b: &[char],
    b2j: &HashMap<char, Vec<usize>>,
    alo: usize,
    ahi: usize,
    blo: usize,
    bhi: usize,
) -> (usize, usize, usize) {
    let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
    // j2len[j + 1] = length of the match ending at (i - 1, j); two rows, reset where written.
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    let mut prev_set: Vec<usize> = Vec::new();
    let mut cur_set: Vec<usize> = Vec::new();
    for (i, c) in a.iter().enumerate().take(ahi).skip(alo) {
        if let Some(js) = b2j.get(c) {
            for &j in js {
                if j < blo {
                    continue;
                }
                if j >= bhi {
                    break;
                }
                let k = prev[j] + 1;
                cur[j + 1] = k;
                cur_set.push(j + 1);
                if k > bestsize {
                    besti = i + 1 - k;
                    bestj = j + 1 - k;
                    bestsize = k;
                }
            }
        }
        for &j in &prev_set {
            prev[j] = 0;
        }
        std::mem::swap(&mut prev, &mut cur);
        std::mem::swap(&mut prev_set, &mut cur_set);
        cur_set.clear();
    }
    // No junk: extend over equal neighbours (popular characters included).
    while besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1] {
        besti -= 1;
        bestj -= 1;
        bestsize += 1;
    }
    while besti + bestsize < ahi
        && bestj + bestsize < bhi
        && a[besti + bestsize] == b[bestj + bestsize]
    {
        bestsize += 1;
    }
    (besti, bestj, bestsize)
}

#[cfg(test)]
mod tests {
    use super::ratio;

    /// Values printed by CPython 3.11's `difflib.SequenceMatcher(None, a, b).ratio()`.
    #[test]
    fn ratios_as_cpython_prints_them() {
        let cases: &[(&str, &str, f64)] = &[
            ("", "", 1.0),
            ("abc", "", 0.0),
            ("abcd", "bcde", 0.75),
            ("qabxcd", "abycdf", 2.0 * 4.0 / 12.0),
            (
                "private Thread currentThread;",
                "private volatile Thread currentThread;",
                0.8656716417910447,
            ),
            (
                "Send 5 USDC to Bob",
                "Send 7 USDT to Bob",
                0.8888888888888888,
            ),
        ];
        for (a, b, want) in cases {
            assert!(
                (ratio(a, b) - want).abs() < 1e-12,
                "{a:?} {b:?}: {}",
                ratio(a, b)
            );
        }
    }

    /// With 200+ characters in `b`, a character occurring more than len/100 + 1 times seeds no
    /// match (CPython: 0.006622516556291391 with 201 characters, 0.6666666666666666 with 199).
    #[test]
    fn autojunk_applies_from_200_characters() {
        let a = format!("{}b", "a".repeat(100));
        let long = format!("b{}", "a".repeat(200));
        assert!((ratio(&a, &long) - 0.006622516556291391).abs() < 1e-15);
        let short = format!("b{}", "a".repeat(198));
        assert!((ratio(&a, &short) - 0.6666666666666666).abs() < 1e-15);
        // Matches still extend over popular characters: identical long strings match fully.
        let same = "a".repeat(200);
        assert_eq!(ratio(&same, &same), 1.0);
    }
}
