; Rust symbols and imports. See doc.go for the capture names.

; Attributes sit between an item and its doc comment.
(attribute_item) @attribute

; `mod x;` names a file of the crate; `use` trees are expanded to one
; import per leaf path by the extractor.
(mod_item name: (identifier) @import.path !body) @import.mod
(use_declaration argument: (_) @import.path) @import.use

; Items.
(function_item
  name: (identifier) @name
  body: (block) @body) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(struct_item body: (field_declaration_list) @body) @definition
(union_item name: (type_identifier) @name) @definition.struct
(union_item body: (field_declaration_list) @body) @definition
(enum_item
  name: (type_identifier) @name
  body: (enum_variant_list) @body) @definition.enum
(enum_variant name: (identifier) @name) @definition.enum_member
(enum_variant body: (field_declaration_list) @body) @definition
(field_declaration_list
  (field_declaration name: (field_identifier) @name) @definition.field)
(trait_item
  name: (type_identifier) @name
  body: (declaration_list) @body) @definition.interface
(trait_item
  name: (type_identifier) @name
  bounds: (trait_bounds
    [(type_identifier) (scoped_type_identifier) (generic_type)] @base)) @definition.interface
(const_item name: (identifier) @name) @definition.const
(static_item name: (identifier) @name) @definition.var
(type_item name: (type_identifier) @name) @definition.type
(associated_type name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name) @definition.namespace
(mod_item body: (declaration_list) @body) @definition

; Functions in impl and trait blocks are methods. An impl block is a scope
; named after its type; `impl Trait for Type` adds Trait to Type's bases.
(impl_item type: (_) @name) @scope
(impl_item trait: (_) @base type: (_) @name) @scope
(impl_item
  body: (declaration_list
    (function_item
      name: (identifier) @name
      body: (block) @body) @definition.method))
(trait_item
  body: (declaration_list
    [(function_item name: (identifier) @name) @definition.method
     (function_signature_item name: (identifier) @name) @definition.method]))

; Visibility: `pub` of any kind. The items of a trait impl cannot carry one
; and are as visible as the trait.
(_ (visibility_modifier) @exported) @definition
(impl_item
  trait: (_)
  body: (declaration_list (_) @definition @exported))

; Declarations inside closures are locals.
(closure_expression) @local
