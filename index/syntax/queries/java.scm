; Java symbols and imports. See doc.go for the capture names.

(package_declaration [(scoped_identifier) (identifier)] @package)

; The whole declaration is the path; the extractor drops `import`,
; `static` and the semicolon, keeping a trailing `.*`.
(import_declaration) @import.package @import.path

; Types. A record is a class, an annotation type an interface.
(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class
(interface_declaration
  name: (identifier) @name
  body: (interface_body) @body) @definition.interface
(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum
(record_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class
(annotation_type_declaration
  name: (identifier) @name
  body: (annotation_type_body) @body) @definition.interface

; Bases: extends and implements.
(class_declaration
  name: (identifier) @name
  (superclass (_) @base)) @definition.class
(class_declaration
  name: (identifier) @name
  (super_interfaces (type_list (_) @base))) @definition.class
(enum_declaration
  name: (identifier) @name
  (super_interfaces (type_list (_) @base))) @definition.enum
(record_declaration
  name: (identifier) @name
  (super_interfaces (type_list (_) @base))) @definition.class
(interface_declaration
  name: (identifier) @name
  (extends_interfaces (type_list (_) @base))) @definition.interface

; Members.
(method_declaration name: (identifier) @name) @definition.method
(method_declaration body: (block) @body) @definition
(constructor_declaration
  name: (identifier) @name
  body: (constructor_body) @body) @definition.constructor
(compact_constructor_declaration
  name: (identifier) @name
  body: (block) @body) @definition.constructor
(field_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field
(enum_constant name: (identifier) @name) @definition.enum_member
(annotation_type_element_declaration
  name: (identifier) @name) @definition.method

; Visibility: public or protected; members of interfaces and annotation
; types and enum constants are implicitly public.
(_ (modifiers "public") @exported) @definition
(_ (modifiers "protected") @exported) @definition
(interface_body (_) @definition @exported)
(annotation_type_body (_) @definition @exported)
(enum_body (enum_constant) @definition @exported)

; Declarations inside lambdas and anonymous classes are locals.
(lambda_expression) @local
(object_creation_expression (class_body) @local)
