; Patterns shared by JavaScript, TypeScript and TSX, whose grammars name
; these nodes alike. Loaded before the language's own file; the patterns that
; must come after it (a later pattern's kind wins) are in ecmascript_tail.scm.
; See doc.go for the capture names.

; Imports: static imports, re-exports, import("x") and require("x").
(import_statement source: (string) @import.path) @import.module
(export_statement source: (string) @import.path) @import.module
(call_expression
  function: (import)
  arguments: (arguments . (string) @import.path .)) @import.module
((call_expression
   function: (identifier) @_fn
   arguments: (arguments . (string) @import.path .)) @import.module
 (#eq? @_fn "require"))

; Function declarations.
(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function
(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

; Class members. A method named constructor is the constructor, get/set
; accessors are properties: those patterns come after the method pattern so
; that their kind wins.
(class_body
  (method_definition
    name: (_) @name
    body: (statement_block) @body) @definition.method)
(class_body
  (method_definition "get" name: (_) @name) @definition.property)
(class_body
  (method_definition "set" name: (_) @name) @definition.property)
((class_body
   (method_definition name: (_) @name) @definition.constructor)
 (#eq? @name "constructor"))

; Variables at the top level of the file.
(program
  [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
   (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)])
(program
  (export_statement
    declaration: [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
                  (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)]))
