; Patterns shared by JavaScript, TypeScript and TSX, loaded after the
; language's own file. See ecmascript.scm.

; A variable initialised with an arrow function or function expression is a
; function: this comes after every variable pattern so that its kind wins.
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
