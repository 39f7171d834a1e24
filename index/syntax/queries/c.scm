; C symbols and includes; cpp.scm is appended to it for C++.
; See doc.go for the capture names. Declarations are matched wherever they
; are (inside #if blocks, extern "C", namespaces); those inside function
; bodies are locals and the extractor drops them.

(preproc_include path: (string_literal) @import.path) @import.include
(preproc_include path: (system_lib_string) @import.path @import.system) @import.include

; Function definitions, possibly returning pointers.
(function_definition
  declarator: (function_declarator declarator: (identifier) @name)
  body: (_) @body) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))
  body: (_) @body) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))
  body: (_) @body) @definition.function

; Prototypes are functions without a body.
(declaration
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(declaration
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function

; Tagged types with a body; a union is a struct.
(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.struct
(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.struct
(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list) @body) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_member
(field_declaration_list
  (field_declaration
    declarator: [(field_identifier) @name
                 (pointer_declarator declarator: (field_identifier) @name)
                 (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
                 (array_declarator declarator: (field_identifier) @name)]) @definition.field)

; Typedefs; `typedef struct { ... } T;` is the struct T.
(type_definition
  declarator: [(type_identifier) @name
               (pointer_declarator declarator: (type_identifier) @name)
               (array_declarator declarator: (type_identifier) @name)
               (function_declarator
                 declarator: (parenthesized_declarator
                   (pointer_declarator declarator: (type_identifier) @name)))]) @definition.type
(type_definition
  type: (struct_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (union_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (enum_specifier !name body: (enumerator_list) @body)
  declarator: (type_identifier) @name) @definition.enum

; Variables: every declarator of a declaration.
(declaration
  declarator: [(identifier) @name
               (init_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (identifier) @name)
               (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
               (array_declarator declarator: (identifier) @name)
               (init_declarator declarator: (array_declarator declarator: (identifier) @name))
               (function_declarator
                 declarator: (parenthesized_declarator
                   (pointer_declarator declarator: (identifier) @name)))]) @definition.var

; Macros: object-like ones are constants, function-like ones functions.
(preproc_def name: (identifier) @name) @definition.const
(preproc_function_def name: (identifier) @name) @definition.function

; `static` at file scope means internal linkage.
(_ (storage_class_specifier "static") @unexported) @definition
