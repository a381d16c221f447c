// Package loader owns the tray app's engine: it loads the model the config names beside the run loop, holds the dictations that need it meanwhile, and downloads missing models and cuBLAS.
package loader
