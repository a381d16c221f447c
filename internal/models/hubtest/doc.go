// Package hubtest serves model folders over HTTP the way the Hugging Face hub does, for tests on loopback.
package hubtest
