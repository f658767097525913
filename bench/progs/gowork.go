// bench/progs/gowork.go: Go's runtime (arena reservations, goroutine stacks, GC) doing some
// work: goroutines hashing, JSON round trips, a channel fan-in.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
)

type item struct {
	ID   int      `json:"id"`
	Name string   `json:"name"`
	Tags []string `json:"tags"`
}

func main() {
	var wg sync.WaitGroup
	sums := make(chan [32]byte, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			buf := make([]byte, 64<<10)
			for i := range buf {
				buf[i] = byte(i * (g + 1))
			}
			sums <- sha256.Sum256(buf)
		}(g)
	}
	wg.Wait()
	close(sums)
	var x byte
	for s := range sums {
		x ^= s[0]
	}
	items := make([]item, 2000)
	for i := range items {
		items[i] = item{i, fmt.Sprintf("item-%d", i), []string{"a", "b"}}
	}
	data, _ := json.Marshal(items)
	var back []item
	if err := json.Unmarshal(data, &back); err != nil {
		panic(err)
	}
	fmt.Printf("goroutines done, xor %d, %d items, %d bytes of JSON\n", x, len(back), len(data))
}
