; Patterns for C++ only, appended to c.scm.

(namespace_definition
  name: (_) @name
  body: (declaration_list) @body) @definition.namespace
; The contents of an anonymous namespace have internal linkage.
(namespace_definition
  !name
  body: (declaration_list (_) @definition @unexported))

(class_specifier
  name: (_) @name
  body: (field_declaration_list) @body) @definition.class
(class_specifier
  name: (_) @name
  (base_class_clause
    [(type_identifier) (qualified_identifier) (template_type)] @base)) @definition.class
(struct_specifier
  name: (_) @name
  (base_class_clause
    [(type_identifier) (qualified_identifier) (template_type)] @base)) @definition.struct

; A template declaration is the range of what it declares.
(template_declaration) @range

; Methods: declared or defined in a class body (a plain function name there
; is a method or constructor, decided by the extractor), or defined out of
; line with a qualified name (`void A::f() {}`: container A).
(field_declaration_list
  (field_declaration
    declarator: (function_declarator
      declarator: [(field_identifier) (destructor_name) (operator_name)] @name)) @definition.method)
(field_declaration_list
  (declaration
    declarator: (function_declarator
      declarator: [(destructor_name) (operator_name)] @name)) @definition.method)
; (A pure virtual method is a function definition without a body.)
(function_definition
  declarator: (function_declarator
    declarator: [(field_identifier) (destructor_name) (operator_name)] @name)) @definition.method
(function_definition body: (_) @body) @definition
(function_definition
  declarator: [(function_declarator declarator: (qualified_identifier) @name)
               (pointer_declarator
                 declarator: (function_declarator declarator: (qualified_identifier) @name))
               (reference_declarator
                 (function_declarator declarator: (qualified_identifier) @name))]
  body: (_) @body) @definition.method
(function_definition
  declarator: (reference_declarator
    (function_declarator declarator: (identifier) @name))
  body: (_) @body) @definition.function
(declaration
  declarator: (function_declarator declarator: (operator_name) @name)) @definition.function
; tree-sitter-cpp parses `int x = 0;` in a class body as a function
; definition with a pure-virtual clause.
(field_declaration_list
  (function_definition declarator: (field_identifier) @name) @definition.field)

(alias_declaration name: (type_identifier) @name) @definition.type

; Declarations inside lambdas are locals.
(lambda_expression) @local
