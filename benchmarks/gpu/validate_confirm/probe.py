"""Which outputs of a "first" reduce sample are none of their row's elements (H100, CuPy).

Run in the prepared folder beside ``validate_confirm.py`` (``python3 probe.py SAMPLE...``): one
launch of each sample's kernel on the fixed input of ``validate_confirm.py run`` (seed 19 + 1);
prints the rows whose output is not among the row's elements, with the first such row's
non-zero elements.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import validate_confirm as vc


def main() -> None:
    """Probe each sample named on the command line."""
    samples = {s["sample"]: s for s in json.load(open("samples.json"))}
    for name in sys.argv[1:]:
        sample = samples[name]
        load, store = sample["loads"][0], sample["stores"][0]
        fixed = vc._inputs(np.random.default_rng(20), sample)
        launch = vc.Launcher(name, sample["kernel"], 2)
        arrays = {load["arg"]: vc.encode(fixed[0].reshape(-1), load["dtype"], load["shape"])}
        outputs = {store["arg"]: (store["shape"], vc.STORAGE[store["dtype"]])}
        got = vc.decode(launch(arrays, outputs)[store["arg"]], store["dtype"])
        rows = np.moveaxis(
            vc.decode(arrays[load["arg"]], load["dtype"]), sample["spec"]["axis"], -1
        )
        bad = [i for i in range(len(got)) if got[i] not in rows[i]]
        first = [int(t) for t in rows[bad[0]] if t] if bad else None
        print(name, "not-in-row:", bad[:8], [got[i].item() for i in bad[:8]],
              "nonzeros of first bad:", first)  # fmt: skip


if __name__ == "__main__":
    main()
