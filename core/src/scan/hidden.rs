//! S101 … S106: characters people cannot see and models read, and U+FFFD
//! where the server sent what is not a character.

use super::rules::Rule;
use super::{At, Sink};

/// The class of an invisible or control character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hidden {
    Tag,
    Bidi,
    ZeroWidth,
    Format,
    Control,
    /// U+FFFD: what a lone surrogate escape (or bytes that are not UTF-8)
    /// was read as.
    Replacement,
}

fn classify(c: char) -> Option<Hidden> {
    match c as u32 {
        0xE0000..=0xE007F => Some(Hidden::Tag),
        0x202A..=0x202E | 0x2066..=0x2069 => Some(Hidden::Bidi),
        0x200B..=0x200D | 0x2060 | 0xFEFF => Some(Hidden::ZeroWidth),
        0x00AD
        | 0x034F
        | 0x061C
        | 0x0600..=0x0605
        | 0x06DD
        | 0x070F
        | 0x115F
        | 0x1160
        | 0x17B4
        | 0x17B5
        | 0x180B..=0x180F
        | 0x200E
        | 0x200F
        | 0x2061..=0x2064
        | 0x206A..=0x206F
        | 0x3164
        | 0xFE00..=0xFE0D
        | 0xFFA0
        | 0xFFF9..=0xFFFB
        | 0x1D173..=0x1D17A
        | 0xE0100..=0xE01EF => Some(Hidden::Format),
        0x00..=0x08 | 0x0B | 0x0C | 0x0E..=0x1F | 0x7F..=0x9F => Some(Hidden::Control),
        0xFFFD => Some(Hidden::Replacement),
        _ => None,
    }
}

/// Whether evidence shows `c` as an escape.
pub(super) fn is_escaped(c: char) -> bool {
    classify(c).is_some() || matches!(c, '\u{FE0E}' | '\u{FE0F}')
}

impl Hidden {
    fn rule(self) -> Rule {
        match self {
            Hidden::Tag => Rule::TagCharacters,
            Hidden::Bidi => Rule::BidiControls,
            Hidden::ZeroWidth => Rule::ZeroWidth,
            Hidden::Format => Rule::InvisibleFormat,
            Hidden::Control => Rule::TerminalEscapes,
            Hidden::Replacement => Rule::ReplacementCharacter,
        }
    }

    fn words(self) -> &'static str {
        match self {
            Hidden::Tag => "Unicode tag character",
            Hidden::Bidi => "bidirectional control",
            Hidden::ZeroWidth => "zero-width character",
            Hidden::Format => "invisible format character",
            Hidden::Control => "control character",
            Hidden::Replacement => "replacement character (U+FFFD)",
        }
    }
}

/// A zero-width joiner between two pictographs (an emoji sequence such as a
/// family) is how emoji are written, not hidden text.
fn emoji_joiner(prev: Option<char>, c: char, next: Option<char>) -> bool {
    let pictograph =
        |c: Option<char>| c.is_some_and(|c| (c as u32) >= 0x2300 && classify(c).is_none());
    c == '\u{200D}' && pictograph(prev) && pictograph(next)
}

/// Per class: how many, and the first run's byte range.
#[derive(Default)]
struct Seen {
    count: usize,
    run: Option<(usize, usize)>,
    run_open: bool,
}

/// S101 … S106 over one string.
pub(super) fn check(sink: &mut Sink<'_>, at: &At<'_>) {
    let text = at.text;
    if text
        .bytes()
        .all(|b| (0x20..0x7F).contains(&b) || b == b'\n' || b == b'\t' || b == b'\r')
    {
        return;
    }
    const CLASSES: [Hidden; 6] = [
        Hidden::Tag,
        Hidden::Bidi,
        Hidden::ZeroWidth,
        Hidden::Format,
        Hidden::Control,
        Hidden::Replacement,
    ];
    let mut seen: [Seen; 6] = Default::default();
    let mut prev: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|(_, n)| *n);
        let class = classify(c).filter(|_| !emoji_joiner(prev, c, next));
        for (slot, k) in seen.iter_mut().zip(CLASSES) {
            if class == Some(k) {
                slot.count += 1;
                match slot.run {
                    None => {
                        slot.run = Some((i, i + c.len_utf8()));
                        slot.run_open = true;
                    }
                    Some((s, _)) if slot.run_open => slot.run = Some((s, i + c.len_utf8())),
                    Some(_) => {}
                }
            } else {
                slot.run_open = false;
            }
        }
        prev = Some(c);
    }
    for (slot, k) in seen.iter().zip(CLASSES) {
        let Some(span) = slot.run else { continue };
        let n = crate::report::plural(slot.count, k.words(), &format!("{}s", k.words()));
        let message = match k {
            Hidden::Tag => {
                let decoded: String = text
                    .chars()
                    .filter_map(|c| match c as u32 {
                        cp @ 0xE0020..=0xE007E => char::from_u32(cp - 0xE0000),
                        _ => None,
                    })
                    .collect();
                format!(
                    "{n}, invisible to people, that a model reads as \"{}\"",
                    crate::value::truncate(&decoded, 100)
                )
            }
            Hidden::Bidi => {
                format!("{n}: the text displays in another order than a model reads it")
            }
            Hidden::Control if text.contains('\u{1B}') => {
                format!(
                    "{n}, with ANSI escape sequences that can hide or rewrite text in a terminal"
                )
            }
            Hidden::Replacement => format!(
                "{n}: the server sent what is not a character here (a lone surrogate escape such as \\udfff, or bytes that are not UTF-8), which clients read differently"
            ),
            _ => format!("{n}, invisible where the text is shown"),
        };
        sink.push(k.rule(), at, span, message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(classify('\u{E0041}'), Some(Hidden::Tag));
        assert_eq!(classify('\u{202E}'), Some(Hidden::Bidi));
        assert_eq!(classify('\u{200B}'), Some(Hidden::ZeroWidth));
        assert_eq!(classify('\u{00AD}'), Some(Hidden::Format));
        assert_eq!(classify('\u{1B}'), Some(Hidden::Control));
        assert_eq!(classify('\u{FFFD}'), Some(Hidden::Replacement));
        assert_eq!(classify('\u{FE0F}'), None);
        assert_eq!(classify('\n'), None);
        assert_eq!(classify('é'), None);
        assert!(emoji_joiner(Some('👨'), '\u{200D}', Some('👩')));
        assert!(!emoji_joiner(Some('a'), '\u{200D}', Some('b')));
    }
}
