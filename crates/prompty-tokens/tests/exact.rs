//! The counts against tiktoken-rs, OpenAI's own implementation of the encodings (its split
//! patterns with their look-ahead, run by a backtracking engine; its merges rescan every
//! pair of a piece under 100 bytes and use a heap of its own above): every prompt
//! file of the corpus, generated text, long pieces, a long text counted in chunks, and
//! whole chat requests against its implementation of OpenAI's framing rule.

use prompty_syntax::{Message, Part};
use prompty_test_support::{Rng, prompt_files};
use prompty_tokens::{Counting, Encoding, count_messages, lookup};
use tiktoken_rs::ChatCompletionRequestMessage;

/// The count of `text` in `encoding` by tiktoken-rs.
fn reference(encoding: Encoding, text: &str) -> usize {
    let bpe = match encoding {
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
    };
    bpe.encode_ordinary(text).len()
}

const ENCODINGS: [Encoding; 2] = [Encoding::Cl100kBase, Encoding::O200kBase];

#[test]
fn hello_world_is_two_tokens_in_both_encodings() {
    for encoding in ENCODINGS {
        assert_eq!(encoding.count("hello world"), 2, "{}", encoding.name());
        assert_eq!(encoding.count(""), 0);
    }
}

#[test]
fn every_prompt_file_counts_as_the_reference_does() {
    let files = prompt_files();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        for encoding in ENCODINGS {
            let expected = reference(encoding, &text);
            assert_eq!(encoding.count(&text), expected, "{} with {}", path.display(), encoding.name());
        }
    }
}

/// Pieces that exercise the split patterns: contractions, digit runs, whitespace runs
/// before words and at the end, line breaks, punctuation runs, CJK, accents and emoji.
const PIECES: &[&str] = &[
    "Hello",
    " world",
    "'s",
    "'LL",
    " 12345",
    "3.14159",
    "   ",
    "\n",
    "\r\n",
    "\n\n  ",
    "\t",
    "!!!",
    "?\n",
    "{{ name }}",
    "<|endoftext|>",
    "日本語の文章",
    " naïve café",
    "Ünïcödé",
    "🙂",
    "👩‍💻",
    "x/y/z",
    "  \n",
    "CamelCaseWord",
    "snake_case_name",
    "URL: https://example.com/a?b=c",
    " ",
    "",
];

#[test]
fn generated_text_counts_as_the_reference_does() {
    let mut rng = Rng::new(25);
    for _ in 0..400 {
        let n = 1 + rng.below(12);
        let text: String = (0..n).map(|_| PIECES[rng.below(PIECES.len())]).collect();
        for encoding in ENCODINGS {
            let expected = reference(encoding, &text);
            assert_eq!(encoding.count(&text), expected, "{text:?} with {}", encoding.name());
        }
    }
}

#[test]
fn chat_requests_count_as_the_reference_does() {
    let mut named = Message::text("user", "What is the capital of France?");
    named.metadata.insert("name".into(), "example_user".into());
    let messages = vec![
        Message::text("system", "You answer in one word."),
        named,
        Message::text("assistant", "Paris."),
        Message {
            role: "user".into(),
            content: vec![Part::Text { value: "And of ".into() }, Part::Text { value: "Italy?".into() }],
            metadata: Default::default(),
        },
    ];
    let as_reference: Vec<ChatCompletionRequestMessage> = messages
        .iter()
        .map(|m| ChatCompletionRequestMessage {
            role: m.role.clone(),
            content: Some(m.text_content()),
            name: m.metadata.get("name").and_then(|v| v.as_str()).map(str::to_owned),
            ..Default::default()
        })
        .collect();
    for model in ["gpt-4o", "gpt-4o-mini", "gpt-4.1", "o3-mini", "gpt-4", "gpt-3.5-turbo"] {
        let expected = tiktoken_rs::num_tokens_from_messages(model, &as_reference).expect("a chat model");
        let counted = count_messages(&lookup(model), &messages);
        assert_eq!(counted.total, expected, "{model}");
    }
}

#[test]
fn estimates_are_a_quarter_of_the_bytes_without_framing() {
    let model = lookup("claude-sonnet-4-5");
    assert_eq!(model.counting, Counting::Estimate);
    let text = "a".repeat(10);
    let counted = count_messages(&model, &[Message::text("user", text.as_str())]);
    assert_eq!(counted.messages[0].tokens, text.len().div_ceil(4));
    assert_eq!(counted.total, counted.messages[0].tokens);
}

#[test]
fn parts_that_are_not_text_are_left_out_and_counted_as_such() {
    let model = lookup("gpt-4o");
    let with_image = Message {
        role: "user".into(),
        content: vec![
            Part::Text { value: "Describe this.".into() },
            Part::Image { value: "https://example.com/a.png".into(), detail: None, media_type: None },
        ],
        metadata: Default::default(),
    };
    let text_only = Message::text("user", "Describe this.");
    let counted = count_messages(&model, &[with_image]);
    assert_eq!(counted.messages[0].uncounted_parts, 1);
    assert_eq!(counted.total, count_messages(&model, &[text_only]).total);
}

#[test]
fn the_byte_bound_is_never_below_the_count() {
    let mut rng = Rng::new(30);
    let mut messages: Vec<Message> = prompt_files()
        .iter()
        .map(|path| Message::text("system", std::fs::read_to_string(path).expect("readable")))
        .collect();
    for _ in 0..200 {
        let n = 1 + rng.below(12);
        let text: String = (0..n).map(|_| PIECES[rng.below(PIECES.len())]).collect();
        let mut m = Message::text(["user", "assistant", "tool"][rng.below(3)], text);
        if rng.below(2) == 0 {
            m.metadata.insert("name".into(), PIECES[rng.below(PIECES.len())].into());
        }
        messages.push(m);
    }
    for model in ["gpt-4o", "gpt-4", "claude-sonnet-4"] {
        let model = lookup(model);
        for m in &messages {
            let one = std::slice::from_ref(m);
            let (bound, total) = (prompty_tokens::upper_bound(&model, one), count_messages(&model, one).total);
            assert!(bound >= total, "{} for {:?}: bound {bound} < count {total}", model.id, m.text_content());
        }
        let all = count_messages(&model, &messages).total;
        assert!(prompty_tokens::upper_bound(&model, &messages) >= all, "{}", model.id);
    }
}

/// Long pieces (a run of punctuation, a blob of base64 or hex with no space, a long word)
/// are merged pair by pair from a heap; their counts are the reference's (which merges
/// pieces of 100 bytes or more with a heap of its own; the short pieces of the generated
/// texts check the merge order against its rescanning of every pair).
#[test]
fn long_pieces_count_as_the_reference_does() {
    let mut rng = Rng::new(41);
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let base64: String = (0..6000).map(|_| char::from(alphabet[rng.below(alphabet.len())])).collect();
    let hex: String = (0..6000).map(|_| char::from(b"0123456789abcdef"[rng.below(16)])).collect();
    let texts = [
        "!".repeat(6000),
        "=-".repeat(1500),
        "a".repeat(6000),
        "ab".repeat(1500),
        base64,
        hex,
        "é".repeat(1000),
        "日本語".repeat(500),
        "🙂".repeat(500),
    ];
    for text in &texts {
        for encoding in ENCODINGS {
            assert_eq!(encoding.count(text), reference(encoding, text), "{} of {:?}…", encoding.name(), &text[..12]);
        }
    }
}

/// A text of 256 KiB or more is counted in parallel chunks; the count is the whole text's.
#[test]
fn a_long_text_counts_as_the_reference_does() {
    let corpus: String = prompt_files().iter().map(|p| std::fs::read_to_string(p).expect("readable")).collect();
    let mut text = String::new();
    let mut rng = Rng::new(52);
    while text.len() < 700_000 {
        text.push_str(&corpus[..rng.below(corpus.len())]);
        text.push_str(PIECES[rng.below(PIECES.len())]);
    }
    for encoding in ENCODINGS {
        assert_eq!(encoding.count(&text), reference(encoding, &text), "{}", encoding.name());
    }
}
