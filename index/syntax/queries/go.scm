; Go symbols and imports. See doc.go for the capture names.
;
; The extractor lets Go patterns start only at the root's children
; (tree-sitter's max start depth 1): patterns still in progress descend as
; far as they need, but no subtree that no pattern needs is visited, which
; skips every function body, the bulk of a Go file. Declarations inside
; function bodies are locals, which the extractor drops anyway, so the
; limit changes the cost, not the result.

(package_clause (package_identifier) @package)

; Imports: one per spec, grouped or not.
(import_declaration
  (import_spec path: (_) @import.path) @import.package)
(import_declaration
  (import_spec_list
    (import_spec path: (_) @import.path) @import.package))

; Functions and methods; functions implemented in assembly have no body.
(function_declaration
  name: (identifier) @name
  body: (block)? @body) @definition.function
(method_declaration
  name: (field_identifier) @name
  body: (block)? @body) @definition.method
(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @receiver))) @definition

; Types: every spec is a TypeAlias unless a later pattern (struct,
; interface) names a more specific kind for the same declaration.
(type_declaration
  (type_spec name: (type_identifier) @name) @definition.type)
(type_declaration
  (type_alias name: (type_identifier) @name) @definition.type)
(type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (struct_type (field_declaration_list) @body)) @definition.struct)
(type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (interface_type "{" @body)) @definition.interface)

; Embedded fields are the bases of a struct; embedded interfaces (a type
; element that is a single type name) the bases of an interface. The
; anchors alone let the first term of a union (`A | B`) through, so the
; element's text must also be the name's.
(type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (struct_type
      (field_declaration_list
        (field_declaration !name type: (_) @base)))) @definition.struct)
(type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (interface_type
      (type_elem
        .
        [(type_identifier) (qualified_type) (generic_type)] @base
        .) @_elem)) @definition.interface
  (#eq? @base @_elem))

; Struct fields and interface methods.
(type_declaration
  (type_spec
    type: (struct_type
      (field_declaration_list
        (field_declaration name: (field_identifier) @name) @definition.field))))
(type_declaration
  (type_spec
    type: (interface_type
      (method_elem name: (field_identifier) @name) @definition.method)))

; Constants and variables: one symbol per name.
; (The name field of a second or later const name is lost by the grammar:
; match the identifiers that are direct children instead; the values are
; inside an expression_list.)
(const_declaration
  (const_spec (identifier) @name) @definition.const)
(var_declaration
  (var_spec name: (identifier) @name) @definition.var)
(var_declaration
  (var_spec_list
    (var_spec name: (identifier) @name) @definition.var))

; A declaration is the range of its spec, so that `type T struct` and
; `const X = 1` keep their keyword and the doc comment above the keyword is
; found; the extractor ignores a range around several specs (a group).
[(type_declaration) (const_declaration) (var_declaration)] @range

; Declarations inside function literals are locals.
(func_literal) @local
