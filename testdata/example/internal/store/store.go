// Package store keeps inventory items in memory.
package store

import (
	"errors"
	"sort"
	"sync"
)

// ErrNotFound is returned when an item does not exist.
var ErrNotFound = errors.New("item not found")

// Item is one stocked product.
type Item struct {
	SKU      string
	Name     string
	Quantity int
}

// Store is a concurrency-safe item store.
type Store struct {
	mu    sync.Mutex
	items map[string]Item
}

// New returns an empty store.
func New() *Store {
	return &Store{items: make(map[string]Item)}
}

// Put adds or replaces an item.
func (s *Store) Put(it Item) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items[it.SKU] = it
}

// Get returns the item with the given SKU.
func (s *Store) Get(sku string) (Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[sku]
	if !ok {
		return Item{}, ErrNotFound
	}
	return it, nil
}

// List returns all items sorted by SKU.
func (s *Store) List() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Item, 0, len(s.items))
	for _, it := range s.items {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SKU < out[j].SKU })
	return out
}
