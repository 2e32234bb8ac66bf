//! Tokenizer: splits a template into text and tags, following set-delimiter
//! tags as it goes.
//!
//! Tags are recognised with `nom` parsers over the remaining input; byte
//! offsets are recovered from the length of what is left.

use nom::bytes::{take_till1, take_until};
use nom::character::complete::{multispace0, multispace1};
use nom::combinator::all_consuming;
use nom::sequence::{delimited, separated_pair};
use nom::{IResult, Parser};

use crate::ast::{Name, Span};
use crate::error::{Error, ErrorKind};

/// What an opening tag opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OpenKind {
    Section,
    Inverted,
    Parent,
    Block,
}

impl OpenKind {
    pub(crate) fn noun(self) -> &'static str {
        match self {
            OpenKind::Section => "section",
            OpenKind::Inverted => "inverted section",
            OpenKind::Parent => "parent",
            OpenKind::Block => "block",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokKind {
    /// Literal text; the token's span is the text itself.
    Text,
    /// `{{x}}` (escape) or `{{{x}}}` / `{{& x}}` (raw).
    Var { name: Name, escape: bool },
    /// `{{#x}}`, `{{^x}}`, `{{<x}}`, `{{$x}}`.
    Open { kind: OpenKind, name: Name },
    /// `{{/x}}`.
    Close { name: Name },
    /// `{{>x}}`.
    Partial { name: Name },
    /// `{{! ... }}`.
    Comment,
    /// `{{=<% %>=}}`, with the new delimiters as written.
    SetDelimiters { open: Span, close: Span },
}

impl TokKind {
    /// Tags that may stand alone on a line (and then take the line with them).
    pub(crate) fn can_stand_alone(&self) -> bool {
        !matches!(self, TokKind::Text | TokKind::Var { .. })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) kind: TokKind,
    /// The whole tag, delimiters included (or the text).
    pub(crate) span: Span,
}

/// How a tag's content is turned into a name.
#[derive(Clone, Copy)]
enum NameRule {
    /// A data path: `.` or dot-separated non-empty segments.
    Path,
    /// A partial or parent name: `*path` (dynamic) or any non-blank word.
    Include,
    /// A block name: any non-blank word.
    Word,
    /// A closing tag: like `Include`, so that it can match any opener.
    Close,
}

const DEFAULT_OPEN: &str = "{{";
const DEFAULT_CLOSE: &str = "}}";

/// Scans `src` into tokens. Text tokens are never empty.
pub(crate) fn tokenize(src: &str) -> Result<Vec<Token>, Error> {
    let mut scanner =
        Scanner { src, open: DEFAULT_OPEN.to_owned(), close: DEFAULT_CLOSE.to_owned(), tokens: Vec::new() };
    scanner.run()?;
    Ok(scanner.tokens)
}

struct Scanner<'s> {
    src: &'s str,
    open: String,
    close: String,
    tokens: Vec<Token>,
}

/// Offset of `rest` (a suffix of `src`) inside `src`.
fn offset_of(src: &str, rest: &str) -> usize {
    src.len().saturating_sub(rest.len())
}

/// `take_until` as a plain function, for readability at the call sites.
fn until<'a>(needle: &str, input: &'a str) -> Option<(&'a str, &'a str)> {
    let res: IResult<&str, &str> = take_until(needle).parse_complete(input);
    res.ok()
}

/// Parses the content of a set-delimiter tag: two whitespace-separated words.
fn delimiter_pair(input: &str) -> IResult<&str, (&str, &str)> {
    let word = || take_till1(char::is_whitespace);
    all_consuming(delimited(multispace0, separated_pair(word(), multispace1, word()), multispace0))
        .parse_complete(input)
}

impl<'s> Scanner<'s> {
    fn run(&mut self) -> Result<(), Error> {
        let mut pos = 0;
        while pos < self.src.len() {
            let rest = self.src.get(pos..).unwrap_or("");
            match until(self.open.as_str(), rest) {
                Some((_, text)) => {
                    self.push_text(pos, pos + text.len());
                    pos = self.tag(pos + text.len())?;
                }
                None => {
                    self.push_text(pos, self.src.len());
                    pos = self.src.len();
                }
            }
        }
        Ok(())
    }

    fn push_text(&mut self, start: usize, end: usize) {
        if start < end {
            self.tokens.push(Token { kind: TokKind::Text, span: Span::new(start, end) });
        }
    }

    fn unclosed(&self, at: usize, opener: &str, closer: &str) -> Error {
        Error::new(
            ErrorKind::UnclosedTag,
            at..at + opener.len(),
            format!("unclosed tag: `{opener}` is never closed by `{closer}`"),
        )
    }

    /// Scans the tag starting at byte `at` (where the open delimiter is) and
    /// returns the offset just past it.
    fn tag(&mut self, at: usize) -> Result<usize, Error> {
        let inner_start = at + self.open.len();
        let inner = self.src.get(inner_start..).unwrap_or("");

        // Triple mustache: `{{{name}}}` (the braces sit inside the delimiters).
        if let Some(body) = inner.strip_prefix('{') {
            let closer = format!("}}{}", self.close);
            let Some((_, content)) = until(&closer, body) else {
                let opener = format!("{}{{", self.open);
                return Err(self.unclosed(at, &opener, &closer));
            };
            let content_start = inner_start + 1;
            let end = content_start + content.len() + closer.len();
            let name = self.name(content, content_start, NameRule::Path, at, end)?;
            self.push(TokKind::Var { name, escape: false }, at, end);
            return Ok(end);
        }

        // Set delimiters: `{{=<% %>=}}`.
        if let Some(body) = inner.strip_prefix('=') {
            let closer = format!("={}", self.close);
            let Some((_, content)) = until(&closer, body) else {
                return Err(Error::new(
                    ErrorKind::InvalidDelimiters,
                    at..at + self.open.len() + 1,
                    format!("invalid set-delimiter tag: `{}=` is never closed by `{closer}`", self.open),
                ));
            };
            let end = inner_start + 1 + content.len() + closer.len();
            let (open, close) = self.set_delimiters(content, inner_start + 1, at, end)?;
            self.push(TokKind::SetDelimiters { open, close }, at, end);
            return Ok(end);
        }

        // A sigil may follow optional whitespace: `{{# a}}`, `{{ #a }}`.
        let trimmed = inner.trim_start();
        let sigil = trimmed.chars().next().filter(|c| matches!(c, '#' | '^' | '/' | '>' | '<' | '$' | '&' | '!'));
        let body = match sigil {
            Some(c) => trimmed.get(c.len_utf8()..).unwrap_or(""),
            None => inner,
        };
        let body_start = offset_of(self.src, body);
        let Some((_, content)) = until(self.close.as_str(), body) else {
            return Err(self.unclosed(at, &self.open, &self.close));
        };
        let end = body_start + content.len() + self.close.len();
        let kind = match sigil {
            Some('!') => TokKind::Comment,
            Some('&') => TokKind::Var { name: self.name(content, body_start, NameRule::Path, at, end)?, escape: false },
            Some('#') => self.open_tag(OpenKind::Section, content, body_start, at, end)?,
            Some('^') => self.open_tag(OpenKind::Inverted, content, body_start, at, end)?,
            Some('<') => self.open_tag(OpenKind::Parent, content, body_start, at, end)?,
            Some('$') => self.open_tag(OpenKind::Block, content, body_start, at, end)?,
            Some('/') => TokKind::Close { name: self.name(content, body_start, NameRule::Close, at, end)? },
            Some('>') => TokKind::Partial { name: self.name(content, body_start, NameRule::Include, at, end)? },
            _ => TokKind::Var { name: self.name(content, body_start, NameRule::Path, at, end)?, escape: true },
        };
        self.push(kind, at, end);
        Ok(end)
    }

    fn push(&mut self, kind: TokKind, start: usize, end: usize) {
        self.tokens.push(Token { kind, span: Span::new(start, end) });
    }

    fn open_tag(
        &self,
        kind: OpenKind,
        content: &str,
        content_start: usize,
        at: usize,
        end: usize,
    ) -> Result<TokKind, Error> {
        let rule = match kind {
            OpenKind::Section | OpenKind::Inverted => NameRule::Path,
            OpenKind::Parent => NameRule::Include,
            OpenKind::Block => NameRule::Word,
        };
        let name = self.name(content, content_start, rule, at, end)?;
        Ok(TokKind::Open { kind, name })
    }

    /// Validates and locates the name in a tag's `content` (which starts at
    /// byte `content_start`); `at..end` is the whole tag, for error spans.
    fn name(&self, content: &str, content_start: usize, rule: NameRule, at: usize, end: usize) -> Result<Name, Error> {
        let tag_text = self.src.get(at..end).unwrap_or("");
        let mut text = content.trim();
        let mut start = content_start + (content.len() - content.trim_start().len());
        let mut dynamic = false;
        if matches!(rule, NameRule::Include | NameRule::Close)
            && let Some(rest) = text.strip_prefix('*')
        {
            dynamic = true;
            let rest_trimmed = rest.trim_start();
            start += 1 + (rest.len() - rest_trimmed.len());
            text = rest_trimmed;
        }
        if text.is_empty() {
            let what = if dynamic { "dynamic name after `*`" } else { "name" };
            return Err(Error::new(
                ErrorKind::EmptyTagName,
                at..end,
                format!("empty tag name: `{tag_text}` needs a {what}"),
            ));
        }
        if text.chars().any(char::is_whitespace) {
            return Err(Error::new(
                ErrorKind::InvalidTagName,
                at..end,
                format!("invalid tag name `{text}`: names must not contain whitespace"),
            ));
        }
        let is_path = matches!(rule, NameRule::Path) || dynamic;
        if is_path && text != "." && text.split('.').any(str::is_empty) {
            return Err(Error::new(
                ErrorKind::InvalidTagName,
                at..end,
                format!(
                    "invalid tag name `{text}`: a dotted name needs a non-empty part \
                     around every `.` (use `.` alone for the current item)"
                ),
            ));
        }
        Ok(Name { span: Span::new(start, start + text.len()), dynamic })
    }

    /// Reads the new delimiters from `content` (which starts at byte `content_start`) and
    /// returns where they are written.
    fn set_delimiters(
        &mut self,
        content: &str,
        content_start: usize,
        at: usize,
        end: usize,
    ) -> Result<(Span, Span), Error> {
        let bad = |detail: &str| {
            Error::new(ErrorKind::InvalidDelimiters, at..end, format!("invalid set-delimiter tag: {detail}"))
        };
        let (open, close) = match delimiter_pair(content) {
            Ok((_, pair)) => pair,
            Err(_) => {
                return Err(bad("expected two delimiters separated by whitespace, like `{{=<% %>=}}`"));
            }
        };
        if open.contains('=') || close.contains('=') {
            return Err(bad("delimiters must not contain `=`"));
        }
        self.open = open.to_owned();
        self.close = close.to_owned();
        // Both words are slices of `content`.
        let span_of = |word: &str| {
            let start = content_start + (word.as_ptr() as usize).saturating_sub(content.as_ptr() as usize);
            Span::new(start, start + word.len())
        };
        Ok((span_of(open), span_of(close)))
    }
}
