//! A deterministic tokenizer: close enough to a BPE tokenizer in shape (a token is a short run
//! of letters or digits with the spaces before it, or one other character) that a harness
//! must really use `/tokenize` to size prompts, and simple enough to be exact.

/// Output tokens are drawn from this many words; their ids are `0..VOCAB_WORDS`.
const VOCAB_WORDS: u32 = 256;
/// Prompt-token ids start here, so they never collide with output words.
const PROMPT_ID_BASE: u32 = 1000;
const PROMPT_ID_SPAN: u32 = 49_000;
/// The longest run of letters or digits one token covers.
const MAX_RUN: usize = 6;

/// Splits text into tokens, returning each token's text.
pub fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < bytes.len() {
        let start = bytes[i].0;
        // Leading spaces belong to the token that follows them.
        while i < bytes.len() && bytes[i].1 == ' ' {
            i += 1;
        }
        if i < bytes.len() && bytes[i].1.is_alphanumeric() {
            let mut run = 0;
            while i < bytes.len() && bytes[i].1.is_alphanumeric() && run < MAX_RUN {
                i += 1;
                run += 1;
            }
        } else if i < bytes.len() {
            i += 1;
        }
        let end = bytes.get(i).map_or(text.len(), |(at, _)| *at);
        out.push(&text[start..end]);
    }
    out
}

/// The token ids of `text`.
pub fn encode(text: &str) -> Vec<u32> {
    pieces(text).into_iter().map(piece_id).collect()
}

fn piece_id(piece: &str) -> u32 {
    // FNV-1a: stable across runs and platforms.
    let mut hash: u32 = 0x811c_9dc5;
    for byte in piece.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    PROMPT_ID_BASE + hash % PROMPT_ID_SPAN
}

/// The output token a sequence samples at `position`: deterministic in the sequence's seed.
pub fn sample(seed: u64, position: usize) -> u32 {
    let mut x = seed ^ (position as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    (x % u64::from(VOCAB_WORDS)) as u32
}

/// The text of an output token.
pub fn decode_output(id: u32) -> String {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "be", "da", "fi", "go", "hu", "ze", "pa",
        "wi",
    ];
    let a = SYLLABLES[(id % 16) as usize];
    let b = SYLLABLES[((id / 16) % 16) as usize];
    format!(" {a}{b}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_short_runs_with_their_leading_spaces() {
        assert_eq!(
            pieces("Hello, wonderful world!"),
            vec!["Hello", ",", " wonder", "ful", " world", "!"]
        );
        assert_eq!(pieces(""), Vec::<&str>::new());
        assert_eq!(pieces("  a"), vec!["  a"]);
        assert_eq!(pieces("a  "), vec!["a", "  "]);
    }

    #[test]
    fn the_pieces_put_back_together_are_the_text() {
        let text = "nonce-42: Die Würde des Menschen ist unantastbar.\n  Zeile zwei";
        assert_eq!(pieces(text).concat(), text);
        assert_eq!(encode(text).len(), pieces(text).len());
    }

    #[test]
    fn encoding_and_sampling_are_deterministic() {
        assert_eq!(encode("same text"), encode("same text"));
        assert_ne!(encode("text a"), encode("text b"));
        assert_eq!(sample(7, 3), sample(7, 3));
        assert!(sample(7, 3) < VOCAB_WORDS);
        // Output words decode to one token each.
        for id in 0..VOCAB_WORDS {
            assert_eq!(pieces(&decode_output(id)).len(), 1, "{id}");
        }
    }
}
