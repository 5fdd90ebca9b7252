"""Past forms of common irregular English verbs and their base forms ("led" -> "lead", "written" -> "write").

Hand-typed general English (the verbs news, reports and answers use), read by :func:`halguard.text.lexical.base_form`.
"""

from __future__ import annotations

__all__ = ["IRREGULAR_PAST_FORMS"]

_TABLE = """
be:was,were,been begin:began,begun break:broke,broken bring:brought build:built buy:bought catch:caught
choose:chose,chosen come:came do:did,done draw:drew,drawn drink:drank,drunk drive:drove,driven eat:ate,eaten
fall:fell,fallen feed:fed feel:felt fight:fought find:found fly:flew,flown forget:forgot,forgotten
freeze:froze,frozen get:got,gotten give:gave,given go:went,gone grow:grew,grown have:had hear:heard hide:hid,hidden
hold:held keep:kept know:knew,known lay:laid lead:led leave:left lend:lent lose:lost make:made mean:meant meet:met
pay:paid ride:rode,ridden ring:rang,rung rise:rose,risen run:ran say:said see:saw,seen seek:sought sell:sold
send:sent shake:shook,shaken shine:shone shoot:shot sing:sang,sung sink:sank,sunk sit:sat sleep:slept
speak:spoke,spoken spend:spent stand:stood steal:stole,stolen stick:stuck strike:struck swim:swam,swum
take:took,taken teach:taught tear:tore,torn tell:told think:thought throw:threw,thrown understand:understood
wake:woke,woken wear:wore,worn win:won write:wrote,written withdraw:withdrew,withdrawn overtake:overtook,overtaken
undertake:undertook,undertaken oversee:oversaw,overseen
"""

IRREGULAR_PAST_FORMS: dict[str, str] = {
    form: base for entry in _TABLE.split() for base, forms in [entry.split(":")] for form in forms.split(",")}
