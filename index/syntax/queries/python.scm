; Python symbols and imports. See doc.go for the capture names.

; Imports: `import a.b`, `import a.b as c`, `from .x import y` (the module
; name keeps its leading dots), `from __future__ import x`.
(import_statement name: (dotted_name) @import.path) @import.module
(import_statement
  name: (aliased_import name: (dotted_name) @import.path)) @import.module
(import_from_statement module_name: (_) @import.path) @import.module
(future_import_statement "__future__" @import.path) @import.module

; Functions anywhere: those inside a function are locals and dropped, so
; what remains are the module's, including those defined under a
; module-level if/elif/else, try/except/else/finally or with (a fallback
; definition, a version switch). The patterns below restate the module
; and class cases, so that a method's kind wins (a later pattern does).
(function_definition
  name: (identifier) @name
  body: (block) @body) @definition.function
(decorated_definition
  definition: (function_definition
    name: (identifier) @name
    body: (block) @body) @definition.function)

; Functions at module level, methods in class bodies; __init__ is the
; constructor (a later pattern, so its kind wins).
(module
  (function_definition
    name: (identifier) @name
    body: (block) @body) @definition.function)
(module
  (decorated_definition
    definition: (function_definition
      name: (identifier) @name
      body: (block) @body) @definition.function))
(class_definition
  body: (block
    (function_definition
      name: (identifier) @name
      body: (block) @body) @definition.method))
(class_definition
  body: (block
    (decorated_definition
      definition: (function_definition
        name: (identifier) @name
        body: (block) @body) @definition.method)))
((class_definition
   body: (block
     [(function_definition name: (identifier) @name) @definition.constructor
      (decorated_definition
        definition: (function_definition name: (identifier) @name) @definition.constructor)]))
 (#eq? @name "__init__"))

; Classes anywhere (a class inside a function is a local and is dropped);
; bases are the positional arguments, not keywords such as metaclass=.
(class_definition
  name: (identifier) @name
  body: (block) @body) @definition.class
(class_definition
  name: (identifier) @name
  superclasses: (argument_list
    [(identifier) (attribute) (subscript)] @base)) @definition.class

; Decorators belong to the range of what they decorate.
(decorated_definition) @range

; Assignments under a module-level if, try or with bind module names too
; (inside a function they are locals, dropped; in a class body the field
; patterns below win).
(_
  (block
    (expression_statement
      (assignment left: (identifier) @name)) @definition.var))

; Module-level assignments are variables, class-level ones fields: every
; name of `a = b = 1` and `a, b = 1, 2`.
(module
  (expression_statement
    (assignment left: (identifier) @name)) @definition.var)
(module
  (expression_statement
    (assignment
      left: [(pattern_list (identifier) @name)
             (tuple_pattern (identifier) @name)])) @definition.var)
(module
  (expression_statement
    (assignment right: (assignment left: (identifier) @name))) @definition.var)
(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name)) @definition.field))
(class_definition
  body: (block
    (_
      (block
        (expression_statement
          (assignment left: (identifier) @name)) @definition.field))))
