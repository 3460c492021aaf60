//! The council meeting's transcript, kept as the data file `council-transcript.txt` (the
//! very file the demo writes), and where each utterance's words are in it.

use serde::{Deserialize, Serialize};

/// The transcript: a title line, a note, and per agenda item a heading followed by one
/// `[hh:mm:ss] SPEAKER: words` line per utterance.
pub(super) const TEXT: &str = include_str!("../council-transcript.txt");

/// The meeting's title (the transcript's first line).
pub(super) const TITLE: &str = "Riverton City Council — Regular Meeting, 14 October 2025";

/// When the last utterance ends (the meeting is adjourned).
const END_TIME: &str = "00:05:41";

/// Where an utterance's words are in the transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UtteranceSpan {
    pub start_time: String,
    pub end_time: String,
    pub speaker: String,
    pub byte_start: usize,
    pub byte_end: usize,
}

/// The transcript and its utterances, in order; each ends when the next one starts.
pub(super) fn transcript() -> (String, Vec<UtteranceSpan>) {
    let mut spans: Vec<UtteranceSpan> = Vec::new();
    let mut offset = 0;
    for line in TEXT.split_inclusive('\n') {
        let start_of_line = offset;
        offset += line.len();
        let line = line.strip_suffix('\n').unwrap_or(line);
        let Some((time, rest)) = line.strip_prefix('[').and_then(|l| l.split_once("] ")) else {
            continue;
        };
        let Some((speaker, words)) = rest.split_once(": ") else {
            continue;
        };
        if let Some(previous) = spans.last_mut() {
            previous.end_time = time.to_owned();
        }
        let byte_end = start_of_line + line.len();
        spans.push(UtteranceSpan {
            start_time: time.to_owned(),
            end_time: END_TIME.to_owned(),
            speaker: speaker.to_owned(),
            byte_start: byte_end - words.len(),
            byte_end,
        });
    }
    (TEXT.to_owned(), spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_at_the_words_of_every_utterance() {
        let (text, spans) = transcript();
        assert_eq!(text.lines().next(), Some(TITLE));
        assert_eq!(spans.len(), 22);
        let first = &spans[0];
        assert_eq!((first.start_time.as_str(), first.end_time.as_str()), ("00:00:05", "00:00:21"));
        assert_eq!(first.speaker, "MAYOR DANA WHITFIELD");
        assert_eq!(
            &text[first.byte_start..first.byte_end],
            "Good evening. I call this regular meeting of the Riverton City Council to order. All five members are present."
        );
        let last = spans.last().unwrap();
        assert_eq!((last.start_time.as_str(), last.end_time.as_str()), ("00:05:30", END_TIME));
        for span in &spans {
            let line_start = text[..span.byte_start].rfind('\n').map_or(0, |i| i + 1);
            let prefix = format!("[{}] {}: ", span.start_time, span.speaker);
            assert_eq!(&text[line_start..span.byte_start], prefix);
            assert_eq!(text.as_bytes()[span.byte_end], b'\n');
            assert!(span.start_time < span.end_time);
        }
        // The title's em dash makes byte offsets differ from character offsets.
        assert!(text.len() > text.chars().count());
    }
}
