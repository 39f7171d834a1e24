; C# symbols and using directives. See doc.go for the capture names.

; The whole directive is the path; the extractor drops `global`, `using`,
; `static`, an alias `X =` and the semicolon.
(using_directive) @import.namespace @import.path

; Namespaces; a file-scoped namespace encloses the rest of the file.
(namespace_declaration
  name: (_) @name
  body: (declaration_list) @body) @definition.namespace
(file_scoped_namespace_declaration name: (_) @name) @definition.namespace @open

; Types. A record is a class, a record struct a struct, a delegate a type.
(class_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @definition.class
(struct_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @definition.struct
(interface_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @definition.interface
(enum_declaration
  name: (identifier) @name
  body: (enum_member_declaration_list) @body) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(record_declaration "struct") @definition.struct
(record_declaration body: (declaration_list) @body) @definition
(delegate_declaration name: (identifier) @name) @definition.type

; Bases.
([(class_declaration name: (identifier) @name (base_list (_) @base)) @definition.class
  (struct_declaration name: (identifier) @name (base_list (_) @base)) @definition.struct
  (interface_declaration name: (identifier) @name (base_list (_) @base)) @definition.interface
  (record_declaration name: (identifier) @name (base_list (_) @base)) @definition.class])

; Members.
(method_declaration name: (identifier) @name) @definition.method
(method_declaration body: (_) @body) @definition
(constructor_declaration name: (identifier) @name) @definition.constructor
(constructor_declaration body: (_) @body) @definition
(property_declaration name: (identifier) @name) @definition.property
(property_declaration accessors: (accessor_list) @body) @definition
(event_declaration name: (identifier) @name) @definition.property
(event_declaration accessors: (accessor_list) @body) @definition
(field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(event_field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(enum_member_declaration name: (identifier) @name) @definition.enum_member

; Visibility: public or protected, but not `private protected`; namespaces
; and members of interfaces and enums are public.
(_ (modifier "public") @exported) @definition
(_ (modifier "protected") @exported) @definition
(_ (modifier "private") @unexported) @definition
[(namespace_declaration) (file_scoped_namespace_declaration)] @definition @exported
(interface_declaration body: (declaration_list (_) @definition @exported))
(enum_member_declaration_list (enum_member_declaration) @definition @exported)

; Declarations inside lambdas and anonymous methods are locals.
[(lambda_expression) (anonymous_method_expression)] @local
