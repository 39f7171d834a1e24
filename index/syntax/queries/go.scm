; Go symbols, imports and doc comments.
;
; Every pattern is rooted at source_file: the extractor limits the query
; cursor's start depth to the root, so with rooted patterns tree-sitter never
; walks into function bodies, the bulk of every Go file. Local declarations
; inside functions are therefore never captured, which is what the index
; wants. See doc.go for the capture names.

(source_file (package_clause (package_identifier) @package))

; Imports: one per spec, grouped or not.
(source_file
  (import_declaration
    (import_spec path: (_) @import.path) @import.package))
(source_file
  (import_declaration
    (import_spec_list
      (import_spec path: (_) @import.path) @import.package)))

; Comments where a doc comment can sit: above top-level declarations, above
; specs in a group, above struct fields and interface methods.
(source_file (comment) @comment)
(source_file (const_declaration (comment) @comment))
(source_file (var_declaration (var_spec_list (comment) @comment)))
(source_file (type_declaration (comment) @comment))
(source_file
  (type_declaration
    (type_spec
      type: (struct_type (field_declaration_list (comment) @comment)))))
(source_file
  (type_declaration
    (type_spec type: (interface_type (comment) @comment))))

; Functions and methods; functions implemented in assembly have no body.
(source_file
  (function_declaration
    name: (identifier) @name
    body: (block)? @body) @definition.function)
(source_file
  (method_declaration
    receiver: (parameter_list (parameter_declaration type: (_) @receiver))
    name: (field_identifier) @name
    body: (block)? @body) @definition.method)

; Types: every spec is a TypeAlias unless a later pattern (struct,
; interface) names a more specific kind for the same declaration.
(source_file
  (type_declaration
    (type_spec name: (type_identifier) @name) @definition.type))
(source_file
  (type_declaration
    (type_alias name: (type_identifier) @name) @definition.type))
(source_file
  (type_declaration
    (type_spec
      name: (type_identifier) @name
      type: (struct_type (field_declaration_list) @body)) @definition.struct))
(source_file
  (type_declaration
    (type_spec
      name: (type_identifier) @name
      type: (interface_type "{" @body)) @definition.interface))

; Embedded fields are the bases of a struct; embedded interfaces (a type
; element that is a single type name) the bases of an interface.
(source_file
  (type_declaration
    (type_spec
      name: (type_identifier) @name
      type: (struct_type
        (field_declaration_list
          (field_declaration !name type: (_) @base)))) @definition.struct))
(source_file
  (type_declaration
    (type_spec
      name: (type_identifier) @name
      type: (interface_type
        (type_elem
          .
          [(type_identifier) (qualified_type) (generic_type)] @base
          .))) @definition.interface))

; Struct fields and interface methods.
(source_file
  (type_declaration
    (type_spec
      type: (struct_type
        (field_declaration_list
          (field_declaration name: (field_identifier) @name) @definition.field)))))
(source_file
  (type_declaration
    (type_spec
      type: (interface_type
        (method_elem name: (field_identifier) @name) @definition.method))))

; Constants and variables: one symbol per name.
; (The name field of a second or later const name is lost by the grammar:
; match the identifiers that are direct children instead; the values are
; inside an expression_list.)
(source_file
  (const_declaration
    (const_spec (identifier) @name) @definition.const))
(source_file
  (var_declaration
    (var_spec name: (identifier) @name) @definition.var))
(source_file
  (var_declaration
    (var_spec_list
      (var_spec name: (identifier) @name) @definition.var)))

; A declaration is the range of its spec, so that `type T struct` and
; `const X = 1` keep their keyword and the doc comment above the keyword is
; found; the extractor ignores a range around several specs (a group).
(source_file
  [(type_declaration) (const_declaration) (var_declaration)] @range)
