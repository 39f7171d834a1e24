; JavaScript (and JSX) symbols and imports. See doc.go for the capture names.

; JSX text is prose, not code: no references in it.
(jsx_text) @text

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

; Functions and classes.
(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function
(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function
(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class
(class_declaration
  name: (identifier) @name
  (class_heritage (_) @base)) @definition.class

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
(class_body (field_definition property: (_) @name) @definition.field)

; Variables at the top level of the file; a variable initialised with an
; arrow function or function expression is a function.
(program
  [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
   (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)])
(program
  (export_statement
    declaration: [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
                  (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)]))
(variable_declarator
  value: [(arrow_function) (function_expression)]) @definition.function
(variable_declarator
  value: [(arrow_function body: (_) @body)
          (function_expression body: (statement_block) @body)]) @definition

; A declaration is the range of its declarator, an export statement the
; range of what it declares; the extractor ignores a range around several
; declarators.
(program [(lexical_declaration) (variable_declaration)] @range)
(export_statement declaration: (_)) @range

; Exports: an export statement makes what it declares exported; `export { a, b as c }` and `export default a` export local
; names.
(export_statement declaration: (_) @definition) @exported
(export_statement
  declaration: [(lexical_declaration (variable_declarator) @definition)
                (variable_declaration (variable_declarator) @definition)]) @exported
(export_statement
  !source
  (export_clause (export_specifier name: (_) @export.name)))
(export_statement value: (identifier) @export.name)

; Declarations inside function expressions and arrow functions (callbacks,
; immediately invoked functions) are locals.
[(arrow_function) (function_expression) (generator_function)] @local
