"""The simulator of emitted code: LLVM IR executed over every thread of a CTA on tagged values."""
