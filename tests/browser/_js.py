"""JavaScript snippets the browser tests share (run with page.evaluate)."""

# The shooter's dice roll high and the target's low: a sure hit and wound.
SCRIPTED_DICE_JS = """() => {
    let i = 0;
    globalThis.__realUniform ??= CONFIG.Dice.randomUniform;
    CONFIG.Dice.randomUniform = () => (i++ % 2 === 0 ? 0.9 : 0.0);
}"""
REAL_DICE_JS = (
    "() => { CONFIG.Dice.randomUniform = globalThis.__realUniform ?? CONFIG.Dice.randomUniform; }"
)
# Control the shooter's token and target one other, by name.
AIM_JS = """([shooter, target]) => {
    const by = (n) => canvas.tokens.placeables.find((t) => t.name === n);
    canvas.tokens.releaseAll();
    for (const t of [...game.user.targets]) t.setTarget(false, {releaseOthers: false});
    by(shooter).control();
    by(target).setTarget(true);
}"""
# Control the shooter's token and target each of a list of others, by name.
AIM_TARGETS_JS = """([shooter, targets]) => {
    const by = (n) => canvas.tokens.placeables.find((t) => t.name === n);
    canvas.tokens.releaseAll();
    for (const t of [...game.user.targets]) t.setTarget(false, {releaseOthers: false});
    by(shooter).control();
    for (const n of targets) by(n).setTarget(true, {releaseOthers: false});
}"""
# A raw socket request, as a macro of a hostile player would send it. The requester is named
# both ways a forger could try (in the payload and beside it); the reply (or a note that none
# came) is returned.
FORGE_JS = """([type, payload]) => new Promise((resolve) => {
    const requestId = 'forged-' + Math.random();
    const timer = setTimeout(() => resolve({ok: null, code: 'no_reply'}), 15000);
    game.socket.on('module.firefight', (d) => {
        if (d.requestId !== requestId) return;
        clearTimeout(timer);
        resolve(d.reply ?? d);
    });
    game.socket.emit('module.firefight', {type, requestId, payload, ...payload});
})"""
# The Shoot dialog's odds have settled on a percentage.
SETTLED_JS = """() => {
    const o = document.querySelector('[data-firefight-odds]');
    return o && !o.classList.contains('pending')
        && o.querySelector('[data-odds-value]').textContent.includes('%');
}"""
