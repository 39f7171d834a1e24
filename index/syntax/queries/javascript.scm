; JavaScript (and JSX) symbols: what the JavaScript grammar names apart from
; TypeScript's. Loaded between ecmascript.scm and ecmascript_tail.scm, which
; hold the shared imports, functions, members, variables and exports. See
; doc.go for the capture names.

; JSX text is prose, not code: no references in it.
(jsx_text) @text

; Classes and their bases.
(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class
(class_declaration
  name: (identifier) @name
  (class_heritage (_) @base)) @definition.class

; Fields.
(class_body (field_definition property: (_) @name) @definition.field)
