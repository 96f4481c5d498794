"""The tile dialect's module as MLIR's Python bindings look it up (`<prefix>.tile`). It defines no op
classes (ops are generic OpViews); that it imports at all is what matters: the bindings cache a dialect
namespace only once its module imported, and retried the failing `mlir.dialects.tile` import at every
op view of a tile op (2372 times, ~15% of compiling a matmul)."""
