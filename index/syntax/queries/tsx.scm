; Patterns for the tsx grammar only, appended to typescript.scm.

; JSX text is prose, not code: no references in it.
(jsx_text) @text
