; TypeScript symbols and imports, shared by the typescript and tsx grammars
; (tsx.scm adds the JSX-only patterns). See doc.go for the capture names.

; Imports: static imports, re-exports, import("x"), require("x") and
; `import x = require("x")`.
(import_statement source: (string) @import.path) @import.module
(import_statement
  (import_require_clause source: (string) @import.path)) @import.module
(export_statement source: (string) @import.path) @import.module
(call_expression
  function: (import)
  arguments: (arguments . (string) @import.path .)) @import.module
((call_expression
   function: (identifier) @_fn
   arguments: (arguments . (string) @import.path .)) @import.module
 (#eq? @_fn "require"))

; Functions, classes, interfaces, aliases, enums, namespaces.
(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function
(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function
(function_signature name: (identifier) @name) @definition.function
(class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class
(abstract_class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class
(interface_declaration
  name: (type_identifier) @name
  body: (interface_body) @body) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum
(enum_body name: (property_identifier) @name @definition.enum_member)
(enum_body
  (enum_assignment name: (property_identifier) @name) @definition.enum_member)
(internal_module
  name: (_) @name
  body: (statement_block) @body) @definition.namespace
(module name: (_) @name) @definition.module
(module body: (statement_block) @body) @definition

; Bases: extends and implements of classes, extends of interfaces.
(class_declaration
  name: (type_identifier) @name
  (class_heritage (extends_clause value: (_) @base))) @definition.class
(class_declaration
  name: (type_identifier) @name
  (class_heritage (implements_clause (_) @base))) @definition.class
(abstract_class_declaration
  name: (type_identifier) @name
  (class_heritage (extends_clause value: (_) @base))) @definition.class
(abstract_class_declaration
  name: (type_identifier) @name
  (class_heritage (implements_clause (_) @base))) @definition.class
(interface_declaration
  name: (type_identifier) @name
  (extends_type_clause type: (_) @base)) @definition.interface

; Class and interface members. A method named constructor is the
; constructor, get/set accessors are properties: those patterns come after
; the method pattern so that their kind wins.
(class_body
  (method_definition
    name: (_) @name
    body: (statement_block) @body) @definition.method)
(class_body (method_signature name: (_) @name) @definition.method)
(class_body (abstract_method_signature name: (_) @name) @definition.method)
(class_body
  (method_definition "get" name: (_) @name) @definition.property)
(class_body
  (method_definition "set" name: (_) @name) @definition.property)
((class_body
   (method_definition name: (_) @name) @definition.constructor)
 (#eq? @name "constructor"))
(class_body (public_field_definition name: (_) @name) @definition.field)
(interface_body (property_signature name: (_) @name) @definition.property)
(interface_body (method_signature name: (_) @name) @definition.method)

; Variables at the top level of the file or of a namespace; a variable
; initialised with an arrow function or function expression is a function.
(program
  [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
   (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)])
(program
  (export_statement
    declaration: [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
                  (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)]))
(internal_module
  body: (statement_block
    [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
     (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)]))
(internal_module
  body: (statement_block
    (export_statement
      declaration: [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
                    (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)])))
(variable_declarator
  value: [(arrow_function) (function_expression)]) @definition.function
(variable_declarator
  value: [(arrow_function body: (_) @body)
          (function_expression body: (statement_block) @body)]) @definition

; A declaration is the range of its declarator, an export statement the
; range of what it declares; the extractor ignores a range around several
; declarators.
(program [(lexical_declaration) (variable_declaration)] @range)
(internal_module
  body: (statement_block [(lexical_declaration) (variable_declaration)] @range))
(export_statement declaration: (_)) @range
(ambient_declaration) @range

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

; Private members are not exported even in an exported class.
(class_body
  (_ (accessibility_modifier "private") @unexported) @definition)

; Declarations inside function expressions and arrow functions (callbacks,
; immediately invoked functions) are locals.
[(arrow_function) (function_expression) (generator_function)] @local
