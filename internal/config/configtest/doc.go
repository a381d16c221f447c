// Package configtest loads a config from YAML text for other packages' tests.
package configtest
