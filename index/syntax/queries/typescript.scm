; TypeScript symbols and imports for the typescript and tsx grammars (tsx.scm
; adds the JSX-only patterns): what TypeScript has beyond JavaScript. Loaded
; between ecmascript.scm and ecmascript_tail.scm, which hold the shared
; imports, functions, members, variables and exports. See doc.go for the
; capture names.

; `import x = require("x")`.
(import_statement
  (import_require_clause source: (string) @import.path)) @import.module

; Functions, classes, interfaces, aliases, enums, namespaces.
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

; Signatures, fields and interface members.
(class_body (method_signature name: (_) @name) @definition.method)
(class_body (abstract_method_signature name: (_) @name) @definition.method)
(class_body (public_field_definition name: (_) @name) @definition.field)
(interface_body (property_signature name: (_) @name) @definition.property)
(interface_body (method_signature name: (_) @name) @definition.method)

; Variables at the top level of a namespace.
(internal_module
  body: (statement_block
    [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
     (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)]))
(internal_module
  body: (statement_block
    (export_statement
      declaration: [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
                    (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)])))

; Ranges of namespace variables and ambient declarations.
(internal_module
  body: (statement_block [(lexical_declaration) (variable_declaration)] @range))
(ambient_declaration) @range

; Private members are not exported even in an exported class.
(class_body
  (_ (accessibility_modifier "private") @unexported) @definition)

