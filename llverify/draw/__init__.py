"""Pictures of layouts (see docs/drawing.md).

* :func:`distributed_svg` / :func:`distributed_picture`: a distributed layout as its
  tensor grid (who holds each element, colour by warp);
* :func:`bank_map_svg` / :func:`bank_map_picture`: a shared layout as a bank map, with a
  register layout's first wavefront and its bank conflicts;
* :func:`conversion_svg` / :func:`conversion_picture`: a conversion through shared memory,
  source grid, bank maps and destination grid side by side;
* :func:`swizzle_comparison_picture`: two bank maps side by side, a shared layout before and
  after a swizzle, with a register layout's first wavefront in each;
* :func:`tv_picture` / :func:`fragment_picture`: CuTe thread-value layouts as their tiles
  (``T<thread>`` / ``V<value>`` per cell), e.g. an MMA atom's A, B and C;
* :func:`draw`: any of them to a file (.svg, .html, .png).

SVG and HTML are built as plain strings (no dependency); PNG needs matplotlib
(``pip install 'llverify[draw]'``), imported only when a PNG is written.

The modules: ``api`` (the public functions above), ``grid`` (the tensor grid of a distributed
layout), ``banks`` (bank maps and the first wavefront's conflicts), ``scene`` (the retained
drawing and its SVG, HTML and PNG renderers), ``fragments`` (thread-value pictures) and
``style`` (colours, sizes, text helpers).
"""

from llverify.draw.api import (
    DEFAULT_MAX_CELLS,
    Picture,
    bank_map_picture,
    bank_map_svg,
    conversion_picture,
    conversion_svg,
    distributed_picture,
    distributed_svg,
    draw,
    picture,
    swizzle_comparison_picture,
)
from llverify.draw.fragments import fragment_picture, tv_picture
from llverify.draw.scene import DrawError, Scene

__all__ = [
    "DEFAULT_MAX_CELLS",
    "DrawError",
    "Picture",
    "Scene",
    "bank_map_picture",
    "bank_map_svg",
    "conversion_picture",
    "conversion_svg",
    "distributed_picture",
    "distributed_svg",
    "draw",
    "fragment_picture",
    "picture",
    "swizzle_comparison_picture",
    "tv_picture",
]
