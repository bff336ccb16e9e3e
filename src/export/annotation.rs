//! tsl's `ParseAnnotationStack` (`xla/tsl/profiler/utils/parse_annotation.h`): an annotation
//! stack is `"outer::inner"`, each part `"<name>"` or `"<name>#<k>=<v>,<k>=<v>#"`.

/// One parsed level of the stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Annotation<'a> {
    pub name: &'a str,
    pub metadata: Vec<(&'a str, &'a str)>,
}

/// Splits on `"::"` (empty parts skipped) and parses each level, outermost first.
pub fn parse_annotation_stack(stack: &str) -> Vec<Annotation<'_>> {
    stack
        .split("::")
        .filter(|part| !part.is_empty())
        .map(parse_annotation)
        .collect()
}

/// Parses one level. Only a trailing `#` marks metadata; then the name is the text before the
/// first `#` and the metadata the text between the first and the second.
pub fn parse_annotation(annotation: &str) -> Annotation<'_> {
    let (name, metadata) = match annotation.strip_suffix('#') {
        Some(body) => {
            let mut parts = body.split('#');
            (parts.next().unwrap_or(""), parts.next().unwrap_or(""))
        }
        None => (annotation, ""),
    };
    Annotation {
        name: name.trim_ascii(),
        metadata: parse_metadata(metadata),
    }
}

fn parse_metadata(metadata: &str) -> Vec<(&str, &str)> {
    split_pairs(metadata)
        .into_iter()
        .filter_map(|pair| {
            let (key, value) = pair.split_once('=')?;
            let (key, value) = (key.trim_ascii(), value.trim_ascii());
            (!key.is_empty() && !value.is_empty()).then_some((key, value))
        })
        .collect()
}

/// Splits on commas outside quotes and brackets. Like tsl, a piece of one character or less is
/// skipped, and an unmatched closing bracket is ignored.
fn split_pairs(metadata: &str) -> Vec<&str> {
    let mut pairs = Vec::new();
    let mut open: Vec<u8> = Vec::new();
    let mut start = 0;
    for (index, byte) in metadata.bytes().enumerate() {
        match byte {
            b'"' | b'\'' => {
                if open.last() == Some(&byte) {
                    open.pop();
                } else {
                    open.push(byte);
                }
            }
            b'{' | b'(' | b'[' => open.push(byte),
            b'}' | b')' | b']' => {
                let opening = match byte {
                    b'}' => b'{',
                    b')' => b'(',
                    _ => b'[',
                };
                if open.last() == Some(&opening) {
                    open.pop();
                }
            }
            b',' if open.is_empty() => {
                if index - start > 1 {
                    pairs.push(&metadata[start..index]);
                }
                start = index + 1;
            }
            _ => {}
        }
    }
    if metadata.len() - start > 1 {
        pairs.push(&metadata[start..]);
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_split_on_double_colon_outermost_first() {
        let stack = parse_annotation_stack("jit_step::::dot.1");
        let names: Vec<_> = stack.iter().map(|a| a.name).collect();
        assert_eq!(names, ["jit_step", "dot.1"]);
        assert!(stack.iter().all(|a| a.metadata.is_empty()));
    }

    #[test]
    fn metadata_needs_the_trailing_marker() {
        let with = parse_annotation("op #a=1, b = two #");
        assert_eq!(with.name, "op");
        assert_eq!(with.metadata, [("a", "1"), ("b", "two")]);
        let without = parse_annotation("op#a=1");
        assert_eq!(without.name, "op#a=1");
        assert!(without.metadata.is_empty());
    }

    #[test]
    fn commas_inside_brackets_and_quotes_do_not_split() {
        let parsed = parse_annotation("x#shape=[1,2],s='a,b',k=v,z#");
        assert_eq!(
            parsed.metadata,
            [("shape", "[1,2]"), ("s", "'a,b'"), ("k", "v")]
        );
    }

    #[test]
    fn empty_keys_values_and_extra_sections_are_ignored() {
        let parsed = parse_annotation("x#=1,k=,ok=2#ignored=3#");
        assert_eq!(parsed.name, "x");
        assert_eq!(parsed.metadata, [("ok", "2")]);
        assert!(parse_annotation_stack("").is_empty());
        assert_eq!(parse_annotation("#").name, "");
    }
}
