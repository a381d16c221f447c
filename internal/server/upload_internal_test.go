package server

import (
	"context"
	"testing"
	"time"
)

// The budget hands out what it has, makes others wait for what is given
// back, and turns them away when their wait ends.
func TestByteBudget(t *testing.T) {
	b := newByteBudget(100)
	ctx := context.Background()
	if !b.take(ctx, 60) || !b.take(ctx, 40) {
		t.Fatal("the budget refused what it had")
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if b.take(short, 1) {
		t.Fatal("an empty budget gave a byte")
	}
	got := make(chan bool, 1)
	go func() { got <- b.take(ctx, 50) }()
	time.Sleep(20 * time.Millisecond)
	b.give(60)
	if !<-got {
		t.Fatal("a waiter did not get bytes that were given back")
	}
	if !b.take(ctx, 10) || b.take(short, 1) {
		t.Fatal("the budget's count is off after giving back")
	}
}
