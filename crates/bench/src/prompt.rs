//! Prompts: deterministic text from the recorded seed, a distinct nonce at the very start of
//! each (so no two streams share a prefix and each holds its own context in the KV cache),
//! sized to the exact target with the server's own tokenizer.

use crate::BenchError;
use crate::client::Engine;

/// Plain English words; the filler is drawn from them by a seeded generator.
const WORDS: &[&str] = &[
    "the",
    "market",
    "river",
    "stone",
    "quiet",
    "signal",
    "number",
    "garden",
    "window",
    "light",
    "engine",
    "paper",
    "north",
    "silver",
    "morning",
    "table",
    "voice",
    "system",
    "orange",
    "forest",
    "bridge",
    "winter",
    "copper",
    "island",
    "measure",
    "thread",
    "harbor",
    "planet",
    "circle",
    "memory",
    "pattern",
    "season",
    "valley",
    "letter",
    "mirror",
    "castle",
    "rocket",
    "ladder",
    "meadow",
    "anchor",
    "canvas",
    "pencil",
    "marble",
    "velvet",
    "thunder",
    "compass",
    "lantern",
    "orchard",
    "glacier",
    "harvest",
    "journey",
    "kernel",
    "lattice",
    "monsoon",
    "nucleus",
    "outpost",
    "prairie",
    "quarry",
    "ribbon",
    "saddle",
    "tundra",
    "umbrella",
    "vessel",
    "walnut",
    "yonder",
    "zephyr",
    "and",
    "of",
    "to",
    "in",
    "with",
    "over",
    "under",
    "across",
    "between",
    "through",
    "slowly",
    "brightly",
    "gently",
    "carefully",
    "again",
];

/// A deterministic stream of words for one prompt.
struct Words {
    state: u64,
}

impl Words {
    fn new(seed: u64, phase: &str, context: u64, index: u64) -> Self {
        let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
        for byte in phase.bytes() {
            state = state.rotate_left(7) ^ u64::from(byte);
        }
        state ^= context.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        state ^= index.wrapping_mul(0x94d0_49bb_1331_11eb);
        Self { state: state | 1 }
    }

    fn next_word(&mut self) -> &'static str {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let value = self.state.wrapping_mul(0x2545_f491_4f6c_dd1d);
        WORDS[(value >> 33) as usize % WORDS.len()]
    }
}

/// The prompt made of the nonce and the first `words` words of its stream.
pub fn text(seed: u64, phase: &str, context: u64, index: u64, words: usize) -> String {
    let mut out = format!("[{index} {context} {phase} {seed:x}]");
    let mut stream = Words::new(seed, phase, context, index);
    for _ in 0..words {
        out.push(' ');
        out.push_str(stream.next_word());
    }
    out
}

/// How far from the target a prompt may be: max(16 tokens, 0.5 %).
pub fn tolerance(target: u64) -> u64 {
    16.max(target / 200)
}

/// A prompt sized for the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sized {
    pub text: String,
    /// Its length by the server's tokenizer.
    pub tokens: u64,
}

/// Sizes the prompt (`phase`, `context`, `index`) to `target` tokens as counted by the
/// server: a proportional first guess, then bisection on the word count until the count is
/// exact or the bracket closes. Fails when nothing within the tolerance exists.
pub async fn size(
    engine: &Engine,
    model: &str,
    counter: Counter,
    seed: u64,
    phase: &str,
    context: u64,
    index: u64,
) -> Result<Sized, BenchError> {
    let count = |words: usize| {
        let text = text(seed, phase, context, index, words);
        async move {
            let tokens = counter.count(engine, model, &text).await?;
            Ok::<_, BenchError>((text, tokens))
        }
    };
    let (base_text, base) = count(0).await?;
    if context <= base {
        return Ok(Sized {
            text: base_text,
            tokens: base,
        });
    }
    // Bracket [low, high] by word count with count(low) <= context < count(high).
    let mut low = (0usize, base, base_text);
    let mut guess = usize::try_from(context - base).unwrap_or(usize::MAX / 2);
    let mut high: Option<(usize, u64, String)> = None;
    for _ in 0..6 {
        let (text, tokens) = count(guess).await?;
        if tokens == context {
            return Ok(Sized { text, tokens });
        }
        if tokens < context {
            low = (guess, tokens, text);
        } else {
            high = Some((guess, tokens, text));
        }
        // Proportional correction from the tokens per word seen so far.
        let per_word = (tokens - base) as f64 / guess.max(1) as f64;
        let wanted = ((context - base) as f64 / per_word.max(0.1)).round() as usize;
        let next = match &high {
            Some((h, _, _)) if wanted >= *h => (low.0 + h) / 2,
            _ if wanted <= low.0 => low.0 + 1,
            _ => wanted,
        };
        if next == guess {
            break;
        }
        guess = next;
    }
    let mut high = match high {
        Some(high) => high,
        None => {
            let mut words = (low.0.max(1)) * 2;
            loop {
                let (text, tokens) = count(words).await?;
                if tokens >= context {
                    break (words, tokens, text);
                }
                low = (words, tokens, text);
                words *= 2;
            }
        }
    };
    while high.0 - low.0 > 1 {
        let middle = (low.0 + high.0) / 2;
        let (text, tokens) = count(middle).await?;
        if tokens == context {
            return Ok(Sized { text, tokens });
        }
        if tokens < context {
            low = (middle, tokens, text);
        } else {
            high = (middle, tokens, text);
        }
    }
    let (text, tokens) = if context - low.1 <= high.1 - context {
        (low.2, low.1)
    } else {
        (high.2, high.1)
    };
    if tokens.abs_diff(context) > tolerance(context) {
        return Err(BenchError::Engine(format!(
            "could not size a {phase} prompt to {context} tokens (closest: {tokens})"
        )));
    }
    Ok(Sized { text, tokens })
}

/// How prompt tokens are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    /// `POST /tokenize` (compliant).
    Tokenize,
    /// A one-token completion's `usage.prompt_tokens`, for servers without `/tokenize`.
    Usage,
}

impl Counter {
    async fn count(self, engine: &Engine, model: &str, text: &str) -> Result<u64, BenchError> {
        match self {
            Self::Tokenize => engine
                .tokenize(model, text)
                .await?
                .ok_or_else(|| BenchError::Engine("/tokenize stopped answering".to_owned())),
            Self::Usage => engine.prompt_tokens_by_usage(model, text).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_are_deterministic_and_distinct_from_the_first_character() {
        assert_eq!(
            text(1, "decode", 1024, 0, 50),
            text(1, "decode", 1024, 0, 50)
        );
        let a = text(1, "decode", 1024, 0, 50);
        let b = text(1, "decode", 1024, 1, 50);
        assert_ne!(a, b);
        // The nonce comes first, so the two share no prefix block.
        assert_ne!(a.as_bytes()[..12], b.as_bytes()[..12]);
        // More words extend the same text.
        assert!(text(1, "decode", 1024, 0, 60).starts_with(&a));
        assert_ne!(
            text(2, "decode", 1024, 0, 50),
            a,
            "the seed changes the text"
        );
    }

    #[test]
    fn tolerance_is_sixteen_tokens_or_half_a_percent() {
        assert_eq!(tolerance(0), 16);
        assert_eq!(tolerance(1024), 16);
        assert_eq!(tolerance(81920), 409);
    }
}
