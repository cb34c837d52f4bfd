"""The one Chromium every browser tier, the worker tier and `make bench` launch, and its flags.

Debian's `chromium` package (README, "The machine"), driven by Playwright with `executable_path`
(`playwright install` cannot download browsers here); `FIREFIGHT_CHROMIUM` names another binary.
"""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("FIREFIGHT_CHROMIUM", "/usr/bin/chromium")

# Playwright's own --disable-features list (its chromiumSwitches, playwright 1.65): Chromium keeps
# one value of a switch, so ours repeats theirs.
_PLAYWRIGHT_DISABLED = [
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
    "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled",
    "PreconnectToSearch",
]
# Headless Chromium 156 opens the omnibox's WebUI popups (chrome://omnibox-popup.top-chrome/, a
# renderer each) for every new window, i.e. every browser context: ~0.9 s of CPU per context
# that no page of ours ever shows.
_OURS_DISABLED = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"]

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--disable-features=" + ",".join(_PLAYWRIGHT_DISABLED + _OURS_DISABLED)]
