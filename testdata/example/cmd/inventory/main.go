// Command inventory serves the item store over HTTP.
package main

import (
	"encoding/json"
	"log"
	"net/http"

	"example.com/inventory/internal/store"
)

func main() {
	s := store.New()
	s.Put(store.Item{SKU: "A-1", Name: "Anvil", Quantity: 3})
	http.HandleFunc("/items", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(s.List())
	})
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", nil))
}
