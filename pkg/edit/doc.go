// Package edit implements the matching behind magenta's edit_file tool,
// which replaces an exact old_string with new_string in a file, and the
// compact unified diff shown in the chat after an edit.
//
// # Matching rules (Apply)
//
//   - old_string must not be empty (ErrEmptyOldString: new files are
//     written with write_file), and must differ from new_string
//     (ErrNoChange).
//   - Matching is byte-exact: no Unicode normalisation, no case folding,
//     tabs and spaces are distinct. Only the two line-ending rules below
//     relax it, and they apply only when the exact text is not found.
//   - Without replaceAll, old_string must occur exactly once. Occurrences
//     are counted overlapping ("aa" occurs twice in "aaa", which would be
//     ambiguous); more than one gives *AmbiguousError with the 1-based
//     start line of each occurrence. With replaceAll, every
//     non-overlapping occurrence is replaced left to right, exactly like
//     strings.ReplaceAll, and the count is returned.
//   - Line endings. Models usually send "\n". If old_string is not found
//     as given and the file contains "\r\n", old_string and new_string are
//     retried with every line ending converted to "\r\n", so the edited
//     lines keep the file's CRLF. Conversely, if the file has no "\r" at
//     all, a "\r\n" old_string is retried with "\n". A file with mixed
//     endings is matched exactly as given first, so the model can target
//     either kind. If the conversion makes old and new equal, Apply returns
//     ErrLineEndingsOnly.
//   - Missing final newline. If old_string (as given or converted) ends
//     with a line terminator that is not found, and the file does not end
//     with "\n", old_string without that terminator may match the very end
//     of the file. Such a match is unique (count 1). The replacement is
//     new_string minus one trailing terminator, so the file still lacks a
//     final newline unless new_string deliberately adds lines ("x\n\n"
//     becomes "x\n"). If that leaves nothing and the match started a line,
//     the preceding line break is removed too: deleting the last line of
//     "a\nb" gives "a". If new_string has no trailing terminator it is used
//     as is.
//   - Otherwise *NoMatchError lists up to three candidate regions.
//
// # Candidates
//
// Lines are compared after trimming and collapsing whitespace: equal lines
// score 1, others the Dice coefficient of their character bigrams (capped
// at 0.99). Every window of the file with as many lines as old_string, one
// more (an extra line anywhere in it) or one fewer (one line of old_string
// missing) is scored by the summed line similarity M of the best
// alignment as 2M / (old lines + window lines). The best non-overlapping windows
// scoring above 0.5 are reported, best first; ties prefer windows of
// old_string's own size, then earlier lines. A region that differs from
// old_string only in whitespace (indentation, tabs vs spaces, trailing
// spaces, CR) scores exactly 1 and so comes first, and its error text says
// so. The work is about file lines × old_string lines comparisons; it is
// capped (see fullWork and maxWork in candidates.go): large inputs fall
// back to whitespace-insensitive equality only, huge ones get no
// candidates.
//
// # Diff
//
// Diff renders a unified diff with "--- path" / "+++ path" headers (no
// timestamps) and "@@ -3,2 +3,3 @@" hunks, marks a missing final newline
// with "\ No newline at end of file", and prints CRLF lines with LF.
package edit
