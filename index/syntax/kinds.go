package syntax

// SymbolKinds lists every SymbolKind, in a fixed order. Callers must not
// modify it.
var SymbolKinds = []SymbolKind{
	Function, Method, Constructor, Class, Interface, Struct, Enum, TypeAlias,
	Const, Var, Field, Property, Namespace, Module, EnumMember,
}

// The sets of symbol kinds that more than one package asks about. Callers
// that need another set combine these (the context builder's "type-like"
// kinds are IsType or IsScope) rather than list kinds again, so that a kind
// added later is placed in every set at once.

// IsCallable reports whether k is a function-like declaration, one with a
// body of statements: Function, Method, Constructor. Declarations inside
// its body are locals, and a signature-only view of it drops the body.
func (k SymbolKind) IsCallable() bool {
	return k == Function || k == Method || k == Constructor
}

// IsType reports whether k declares a type: Class, Interface, Struct, Enum,
// TypeAlias. These are the kinds that can be a base type (extended,
// implemented or embedded), whose members a value's type selects, and that
// a Rust `impl Trait for Type` may add bases to. Namespace and Module are
// not types: they name scopes, not values' types (see IsScope).
func (k SymbolKind) IsType() bool {
	switch k {
	case Class, Interface, Struct, Enum, TypeAlias:
		return true
	}
	return false
}

// IsScope reports whether k names a scope of declarations and nothing else:
// Namespace (C# and C++ namespaces, TypeScript namespaces, Rust modules)
// and Module (TypeScript `module` declarations). Such a declaration often
// spans a whole file, so the context builder never makes it a block of its
// own, yet it slices like a type (a header followed by its members).
func (k SymbolKind) IsScope() bool {
	return k == Namespace || k == Module
}

// IsContainer reports whether a symbol of kind k encloses the declarations
// inside its range, which then take it as their Container: the callables,
// the types except TypeAlias, the scopes, and EnumMember (a Rust enum
// variant declares its named fields). Variables,
// fields, constants and type aliases enclose nothing: `struct S {...} s;`
// declares S at the top level, not inside s.
func (k SymbolKind) IsContainer() bool {
	switch k {
	case Class, Interface, Struct, Enum, EnumMember, Namespace, Module:
		return true
	}
	return k.IsCallable()
}
