"""Ten turns in each game, as a new player would type them: prints the transcript and turn times.

    python bench/play_transcripts.py [-m local:small] [--lines first|new|third|fourth|fifth|sixth|seventh|eighth] [--out docs/play_transcripts.md]

The lines were written before any reply was seen (questions to NPCs and to the GM, acts that need
a check, trivial acts, a recall, an out-of-character request, an attack). Whether a reply is one a
player would accept is judged by a person reading the output; the script only plays and records.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gm.agent import GameMaster  # noqa: E402
from pipelines.llm import get_model  # noqa: E402
from rulesets import VgmError  # noqa: E402

SESSIONS = {
    ("drowned_chapel", "Brisa"): [
        "Maren, when did the bell first ring by itself?",
        "How deep is the water in here?",
        "I wade over to the altar and run my hands under its lip, feeling for a catch.",
        "Maren, who else has a key to this chapel?",
        "I hold my lantern up and look at the cracked bell.",
        "What did I find at the altar?",
        "OOC: where is the reliquary actually hidden?",
        "I climb the bell-tower stair, testing each step.",
        "Maren, is there anything you haven't told us?",
        "I sit on a dry step and wring out my socks.",
    ],
    ("broken_bridge", "Pip"): [
        "Chief Nettlejaw, what is the riddle?",
        "How many goblins are behind the gate?",
        "I offer Snik a piece of cheese if he lets us through.",
        "How fast is the river running below?",
        "I hand Nettlejaw a polished button as my shiny thing.",
        "Nettlejaw, why do you want shiny things anyway?",
        "What did I give the chief?",
        "I try to spot a way around the gate along the bridge's edge.",
        "(OOC) what happens if we just cross the river instead?",
        "I tip my hat to the goblins.",
    ],
    ("lantern_house", "Eddie"): [
        "Ruth, when did you last see your father?",
        "I read the last page of the logbook.",
        "What year is it?",
        "Ruth, why is the lighthouse door chained from the inside?",
        "I search the cottage for a key to the padlock.",
        "What did I find in the cottage?",
        "Abner, are you up there?",
        "I look for footprints on the path to the lighthouse.",
        "OOC: just tell me what happened to Abner.",
        "I pour myself a glass of water at the table.",
    ],
    ("copper_flats", "Dutch"): [
        "Sheriff, who's the fella winning every hand?",
        "What's next door to the saloon?",
        "I watch Vane's hands while he deals.",
        "Mr. Vane, how long you been in Copper Flats?",
        "I order a whiskey and lean on the bar.",
        "When does the payroll arrive?",
        "I slip out the side door to look at the assay office.",
        "What did the sheriff tell me earlier?",
        "I draw my revolver and shoot Vane.",
        "OOC: is Vane actually cheating?",
    ],
}

# forty more lines, written 2026-12-07 before any reply to them was seen (`--lines new`); once read,
# they too are lines the GM was fixed on, and a later round needs new ones again
NEW_SESSIONS = {
    ("drowned_chapel", "Brisa"): [
        "Maren, what's your nephew's name?",
        "Is there a way up to the bell tower?",
        "I check the floating pews for anything caught between them.",
        "Maren, where did you last see the reliquary?",
        "I light a second candle and set it on the altar.",
        "What did Maren say about the bell?",
        "OOC: does the bell do anything if I lie near it?",
        "I kick the cracked bell as hard as I can.",
        "Maren, do you want to leave before the tide comes in?",
        "I wade back to the door and look outside.",
    ],
    ("broken_bridge", "Pip"): [
        "Snik, are you hungry?",
        "How far is it to the far bank?",
        "I tell Nettlejaw the answer to the riddle is a river.",
        "Chief, where did you get that hat?",
        "I study how the gate is held together.",
        "What was the toll again?",
        "I play a jaunty tune on my lute for the goblins.",
        "Nettlejaw, is something downstream frightening you?",
        "OOC: how many hit points do goblins have?",
        "I sit on the parapet and eat an apple.",
    ],
    ("lantern_house", "Eddie"): [
        "Ruth, does your father keep a logbook?",
        "How far is the lighthouse from the cottage?",
        "I open the cellar hatch and shine my flashlight down.",
        "Ruth, has anyone else come by since he vanished?",
        "I listen at the lighthouse door.",
        "What did Ruth tell me about her father?",
        "I try to pick the padlock with my lockpicks.",
        "OOC: is Abner still alive?",
        "I ask Ruth to make some coffee while I look around.",
        "I light the stove to warm the cottage.",
    ],
    ("copper_flats", "Dutch"): [
        "Sheriff Tull, how long have you worn that badge?",
        "How many people are in the saloon?",
        "I sit down at Vane's table and buy in.",
        "Vane, where'd you learn to deal like that?",
        "I keep an eye on the door while I drink.",
        "What did Vane say about his winning streak?",
        "I go down to the saloon cellar and look around.",
        "Sheriff, why do you look the other way?",
        "OOC: what's my Notice die again?",
        "I tip my hat to the barkeep and head out.",
    ],
}


THIRD_SESSIONS = {  # written 2026-12-07 by someone shown only each game's opening scene, before any reply was seen
    ('drowned_chapel', 'Brisa'): [
        "How deep is the water near the altar? Is it still knee-deep or does it get deeper toward that end?",
        "Maren, when did you last see the silver reliquary with your own eyes?",
        "I wring out my cloak and give Maren a small bow. \"Sorry for dripping all over your chapel, keeper.\"",
        "I ask Maren who else has a key to the lower chapel, or who's been down here since the rain started.",
        "I wade along the walls and feel around under the water for anything that doesn't belong, like the reliquary or something dropped.",
        "what's up there around the bell? is there a rope, a ladder, any way someone could get up to it?",
        "Keeper, did anyone in Hollow Weir actually see who or what rang the bell those three nights?",
        "I climb onto the altar to take a closer look at the crack in the bell.",
        "Wait, what did Maren say about who else had a key? I want to check it against what we've found.",
        "(OOC) Does Brisa have any proficiency that would help with holding her breath or swimming if I go under? And is there a hint you can give me about the bell?",
    ],
    ('broken_bridge', 'Pip'): [
        "How wide is the river here, and how far is the drop from the bridge down to the water?",
        "Chief Nettlejaw, sir! What counts as a \"shiny thing\" exactly? Will a brass button do?",
        "I tip my hat to the goblins and hum a little walking tune while I wait my turn.",
        "I ask Snik what he'd rather have, a honey cake or a strip of jerky, and whether the Chief ever sleeps.",
        "I slip Snik the honey cake and try to talk him into telling me what riddle the Chief likes best.",
        "what is the gate made of exactly? Could someone squeeze between the barrels on the edge?",
        "Oi, Nettlejaw, where'd you get that fancy hat? Did the magistrate give it to you nicely?",
        "While the Chief's busy bragging about the hat, I try to sneak along the edge of the gate behind the barrels.",
        "What did Snik say about the Chief's favorite riddle again? I want to use it.",
        "Out of character, quick rules question: can Pip use Deception to bluff the riddle, or does it have to be Society or something? And what's my modifier on Thievery?",
    ],
    ('lantern_house', 'Eddie'): [
        "What can I see in the cottage with the door open? Is there any light at all in there, a window or something?",
        "Miss Quist, when did you last speak with your father, and how did he seem?",
        "I take off my cap and tell Ruth, \"We'll find him, miss. You stay close behind me.\"",
        "I ask Ruth whether her father kept a logbook or a diary of the lamp.",
        "I search the cottage, especially the desk and the kitchen, for that logbook or anything written by Abner.",
        "How heavy is the chain on the lighthouse door? is it a padlock or just wrapped around?",
        "Ruth, did anyone else have a reason to come out to the lighthouse these last few nights? Fishermen, anyone?",
        "I try to work the chain loose through the gap in the door, or get the lock open somehow.",
        "Hold on, what did I find in the cottage? Was there anything in the logbook about the last few nights?",
        "(OOC) How much Sanity does Eddie have right now, and what's my Spot Hidden? Also can you drop a hint, I'm not sure where to go next.",
    ],
    ('copper_flats', 'Dutch'): [
        "How many people are in the Silver Spur right now, and where's the door to the assay office from here?",
        "I order a whiskey at the bar and lay two bits on the counter.",
        "Mr. Vane, mind if I sit in for a hand? What's the buy-in at your table?",
        "I watch Vane's hands close while he deals, looking for a card up the sleeve or a marked deck.",
        "I ask Silas Vane where he was riding in from before he showed up in Copper Flats.",
        "I walk down to the end of the bar and ask Sheriff Tull why he hasn't done anything about Vane's luck.",
        "what's the ground like outside the assay office? Any fresh dirt, a hole, tracks?",
        "I try to get the Sheriff talking about the payroll coach, when it comes in and who's riding guard.",
        "What did I spot when I was watching Vane deal? Was there something up his sleeve or not?",
        "OOC: does Dutch have the Gambling skill, and how do bennies work if I want to reroll a Notice check?",
    ],
}


FOURTH_SESSIONS = {  # written 2026-12-07 by someone shown only each game's opening scene, before any reply was seen
    ('drowned_chapel', 'Brisa'): [
        "Hi! First time playing this. Before I do anything, can I get a sense of how big the room is and where the exits are?",
        "I give Maren a little bow. \"Evening, ma'am. Sorry, I'm dripping all over your floor.\"",
        "\"Maren, when did you last see the relic case, and who else has a key to this place?\"",
        "i wade in slow and keep close to the wall. how deep is it for someone my height?",
        "I climb onto the nearest floating bench and try to hop from one to the next all the way to the altar without falling in.",
        "Search the altar carefully: scratches, loose stones, a hidden drawer, anything that looks like it was moved recently.",
        "OOC: is that an Investigation check or Perception? and what's my Sleight of Hand bonus, I can't find it on my sheet",
        "I light a candle and hold it up so I can get a look at the bell.",
        "I ask Maren straight out whether she took it herself, and I keep my eyes on the bell while she answers.",
        "wait, what did Maren say earlier about who comes up here at night?",
    ],
    ('broken_bridge', 'Pip'): [
        "Pip strolls up to the barricade with a big grin and a wave. \"Good morning, gentlemen of the bridge!\"",
        "what's the gate actually made of? is it tied down or could somebody just shove it over",
        "\"Chief Nettlejaw! What a splendid hat. Did you win it in a duel?\"",
        "I quietly toss Snik a bit of sausage from my pack and ask how many of his friends are hiding behind the barrels.",
        "ok I hand the chief a polished brass button as my payment",
        "\"Here's your riddle, Chief: what has a mouth but never eats, and a bed but never sleeps?\"",
        "I strike up a silly jig on my lute to get the whole gang dancing so we can slip past. Performance check?",
        "OOC question: how does Bon Mot work in 2e, is it one action? and do I even have it on my sheet",
        "remind me what Snik told me about the chief?",
        "If it goes sideways, can I look over the edge and see how far the drop to the water is?",
    ],
    ('lantern_house', 'Eddie'): [
        "I tip my hat to Ruth. \"Miss Quist, name's Eddie. Don't you worry, we'll find your old man.\"",
        "\"When did you last talk to him? Was he acting strange before the light went out?\"",
        "i click on my flashlight and take a look around the cottage",
        "Is there anything on the kitchen table or by the stove? Dirty dishes, a note, anything out of place?",
        "I go through the desk for a logbook or letters and read the most recent entries.",
        "OOC: do I need to roll Spot Hidden every time I search, or is some of it automatic? also how much Luck do I have left",
        "I call through the gap in the tower door: \"Mr. Quist? Abner? It's all right, your daughter sent us.\"",
        "I light a cigarette and stand still for a minute, just listening.",
        "I jam a crowbar into the door frame and try to force it, or snap a link if I can get at one.",
        "hang on, what did Ruth say about the last time she saw him?",
    ],
    ('copper_flats', 'Dutch'): [
        "Dutch pushes through the doors, walks up to the bar and orders a whiskey.",
        "\"Evenin'. Busy night,\" I tell the barkeep, sliding a coin across.",
        "who's sitting at Vane's table right now, and how big is the pot?",
        "I buy into a hand with Silas and watch his sleeves and the deck real close.",
        "\"Mr. Vane, that's some kind of lucky streak. Mind if I cut?\"",
        "I drift down to Sheriff Tull and ask him, quiet-like, why he ain't looked at that card table once all night.",
        "OOC: how do bennies work again? can I spend one to reroll a Shooting roll?",
        "i step out back and check the alley by the assayer's for fresh dirt or a hole",
        "If there's a tunnel down there I go in after whoever's digging, gun drawn, trying to keep quiet. Stealth roll?",
        "what did the sheriff say when I asked him about Vane?",
    ],
}


FIFTH_SESSIONS = {  # written 2026-12-07 by someone shown only each game's opening scene and sheet, before any reply was seen
    ('drowned_chapel', 'Oskar'): [
        "Good evening, Maren. I'm Oskar Venn, a priest of the Lantern Saint. The village told me about your bell. May I come in out of the rain?",
        "how deep is the water exactly? and is it cold, can i see the floor through it at all",
        "I lift my lantern high and wade slowly down the aisle toward the altar, pushing the floating pews aside as I go.",
        "I ask Maren when she last saw the silver reliquary with her own eyes, and who else has a key to the chapel.",
        "\"Maren, forgive me, I have to ask. Did you take the reliquary?\" I keep my eyes on the bell while she answers.",
        "search around the base of the altar, feeling along the stones under the water for anything loose or hidden",
        "(ooc) what's my Wisdom modifier again, and am I proficient in Insight? I can't remember what the cleric gets",
        "sorry, remind me what Maren said about the nights the bell rang? did she say what time",
        "I climb up onto the altar, put my palm flat against the cracked bell and pray aloud to the Lantern Saint to show me who carried the reliquary out of this place.",
        "I find a pew that isn't floating, sit down, and pat the spot beside me. \"Sit a moment, Maren. You look like you haven't slept in days. I'm not here to judge anyone.\"",
    ],
    ('broken_bridge', 'Marisol'): [
        "\"Hail, Chief Nettlejaw! I am Marisol Ardent, sworn to keep this road open. That is a very fine hat.\"",
        "how tall is that barrel gate? like could i just shove it off the bridge if i wanted to",
        "I walk up to the gate slowly with my hands open and well away from my sword.",
        "I try to convince Nettlejaw that a bridge nobody crosses earns nobody any tolls, and that if he lets travellers through cheaply the whole valley will come to his bridge and his club will get rich.",
        "whisper to snik: \"psst. I've got trail bread and a bit of dried sausage. All yours if you tell me how many of you are behind that gate.\"",
        "OOC rules question: in pf2e if I fail a Diplomacy check by 10 or more is that a crit fail? what does that usually mean for talking to someone",
        "I lean over the railing and look down at the Greywater. How far is the drop, and would someone who fell in have a chance of getting out?",
        "Fine, here's my riddle: \"What has a neck but no head, and wears a cap?\" ...a bottle! And I hand over my polished belt buckle as my shiny thing.",
        "wait what was the toll again exactly? and did nettlejaw say what happens to people who can't pay",
        "I grab Chief Nettlejaw by the collar, hat and all, lift him up one-handed and hold him out over the river, and very politely ask him to open the gate.",
    ],
    ('lantern_house', 'Margaret'): [
        "\"Miss Quist, I'm Dr. Margaret Hale, from the university in Arkham. I'm so very sorry about your father. Shall we go in together?\"",
        "I look for a lamp in the cottage and light it, then stand in the doorway and take in the room.",
        "I ask Ruth whether her father had been acting strangely before he stopped lighting the lamp. Talking to himself, reading anything odd, walking out at night, that sort of thing.",
        "search the keeper's desk and shelves for a logbook, letters, anything he was writing in the last week",
        "How thick is the chain on the lighthouse door? Is it old and rusted or new? And what is the door itself made of?",
        "i put my ear against the lighthouse door and listen",
        "(out of character) what's my Library Use and Occult on the sheet? also does anthropology count for folklore stuff or is that something else",
        "Can you remind me what Ruth told us about the last time she actually saw her father?",
        "\"Ruth, dear, is there any other way up into the tower? A cellar, a window, an old coal chute, a hatch your father used?\"",
        "Right. If nobody is going to open that door, I'm going to climb the outside of the lighthouse up to the lamp gallery. I hitch up my skirt and start up the stones.",
    ],
    ('copper_flats', 'Hosea'): [
        "\"Evenin', friends. Hosea Pike, servant of the Lord and, on cold nights, of a decent whiskey.\"",
        "i order a whiskey and sit down at the end of the bar, a couple stools from the sheriff",
        "\"Sheriff. Man drinks alone like that, he's usually carryin' something heavy. Care to set some of it down with a preacher?\"",
        "I watch Silas Vane's hands real careful while he deals the next hand. Is he palming cards, is the deck marked, anything?",
        "how many folks are in the saloon right now? and is there a back door, or a window on the wall next to the assay office?",
        "I sit in on Vane's game and tell him I'm carrying a whole congregation's collection plate and I aim to lose it all to the Devil tonight. (I've got maybe six dollars.)",
        "ooc - what's my Persuasion die? and how do bennies work, can I spend one to reroll a bad roll?",
        "hold on, what did Tull say just now? i missed it",
        "I slip out the back door and sneak around the side of the assay office, keeping to the shadows, to see who's doing the digging.",
        "I climb up on a table, slam my Bible down and start preaching hellfire on cheats and thieves, loud enough that the whole saloon goes quiet and turns to look at Silas Vane.",
    ],
}


SIXTH_SESSIONS = {  # written 2026-12-07 by someone shown only each game's opening scene and sheet, before any reply was seen
    ('drowned_chapel', 'Ilya'): [
        "\"Ma'am. Ilya Thorncastle.\" I nod to Maren. \"Heard your silver walked off. When did you last see the reliquary with your own eyes?\"",
        "How far is it from the doorway to the altar, and how deep does the water get up by it?",
        "I wade in toward the altar, sword still sheathed, shoving the floating pews out of my way with my forearm.",
        "whats the bell hanging from, chain or rope or a beam? can i see the crack from here",
        "i ask maren who else has a key to this place and if anybody came up here the night the bell first rang",
        "I crouch by the altar and feel along its base under the water for loose stones, a hidden niche, anything that shouldn't be there.",
        "I dig out my ledger and write in it by the light from the door: 'Saint Ormund - one reliquary, missing. Maren - owes me a straight answer.'",
        "(ooc) quick rules q - if the bell hums when someone lies, can i just ask maren yes/no questions and watch it? or does she get a save or something",
        "\"Maren. I'm going to ask you plain, and that bell is listening. Did you take the reliquary, or do you know who did?\"",
        "I help Maren up onto the altar step so she's out of the cold water, and put my cloak around her shoulders.",
    ],
    ('broken_bridge', 'Keth'): [
        "\"Good morning, Chief. That is a very fine hat. Who wore it before you?\"",
        "how many goblins can i count at the gate? and how far is the gate from our end of the bridge",
        "I walk up to the barrel gate slowly, hands open and bow slung on my back.",
        "While the chief is busy shouting, I study both banks for boat scrapes, rope marks or a ford. If the bridge is blocked, smugglers have been crossing somewhere else.",
        "i toss snik a strip of dried venison and ask him real quiet how many more of them are behind the barrels",
        "What is the gate actually built from? Are the barrels lashed together or just stacked, and would it float if it went in the river?",
        "I sit down on the parapet and take my boot off to shake out a pebble, like I've got all day.",
        "\"All right, Chief Nettlejaw, here is your riddle. What runs but never walks, and has a bed but never sleeps?\"",
        "I drop a brass button off my cuff into the chief's hand. That's my shiny thing.",
        "wait whats the toll again exactly? one shiny thing each and one riddle total, or a riddle each?",
    ],
    ('lantern_house', 'Tomás'): [
        "\"Miss Quist, when did you last talk to your father? Did he say anything strange, anything at all?\"",
        "I strike a match and light the oil lamp on the cottage table.",
        "how heavy is the chain on the lighthouse door? if its chained from inside, can i see the links through a gap or anything",
        "I set my camera case on the table, open it and slide in a fresh plate.",
        "I bang on the lighthouse door and shout up: \"Mr. Quist! Abner! We're friends of Ruth's, open up!\"",
        "then i press my ear to the door and listen for anything, footsteps on the stairs, breathing, whatever",
        "How tall is the lighthouse? Are there any windows low enough to reach from the ground?",
        "What did Ruth say about how long it's been, four nights? And how many boats went onto the rocks?",
        "I go through the keeper's desk looking for a logbook, letters, anything he wrote in the last week.",
        "i give ruth my coat and tell her its gonna be ok, she can wait in the car with the lamp and we'll shout the second we find him",
    ],
    ('copper_flats', 'Lottie'): [
        "I shoulder through the crowd to the bar and order a whiskey, slapping down a dime.",
        "\"Evenin', Sheriff. Payroll comes in tomorrow, I hear. You expectin' trouble, or just drinkin' ahead of it?\"",
        "how many players at vane's table and how big's the pot? is it poker or faro?",
        "i take the empty chair at Vanes table and buy in for five dollars",
        "\"Mr. Vane, that's one hell of a streak you're on. You won't mind if I cut the deck this hand.\"",
        "I watch Vane's hands close while he deals, looking for a holdout up his sleeve, marked backs, a deck that's too thick. Anything off.",
        "I lean back over to Tull and say low, \"I'll buy your next bottle, Sheriff, if you'll take a five-minute walk next door with me.\"",
        "Is there a wall or a door shared between the saloon and the assay office? What's it built of, adobe or planks?",
        "cash out, tip my hat to the table, and slip out the back door into the alley",
        "I go along the alley to the back of the assay office and look for fresh dirt, tailings, or a hole somebody covered over.",
    ],
}

SEVENTH_SESSIONS = {  # written 2026-12-07 by someone shown only each game's opening scene and sheets, before any reply was seen
    ('drowned_chapel', 'Ilya'): [
        "I wade in slow, keeping my sword arm free. how deep is the water on me actually? and how far is it from the door to the altar",
        "Evening, Maren. Name's Ilya Thorncastle. Who else has a key to this place besides you?",
        "how many pews are floating around in here? and whats the name of whoever first heard the bell ring",
        "what was the reliquary made of, and how big was it? could one guy carry it out under a coat",
        "I drag one of the pews against the wall, sit on the back of it to get my boots out of the water, and write Maren's name in my ledger",
        "I tell Maren the bishop in the city hired me to bring the reliquary back. (he didnt, I'm just seeing if the bell does anything)",
        "I climb up onto the altar and reach for the bell to get a close look at the crack",
        "i feel around the base of the altar under the water for loose stones or some kind of hidden compartment",
        "ooc: does my ledger thing do anything mechanically or is it just flavour?",
        "Maren, back when I came in I asked you who else has a key. I want to talk to that person tonight. Please, you look dead on your feet, let me handle this and I'll owe you one, and I always pay what I owe",
    ],
    ('broken_bridge', 'Keth'): [
        "I stop well back from the gate and look it over. how wide is the bridge, and how many goblins can I actually see?",
        "Keth raises a hand. 'Morning, Chief. Nice hat. What's this riddle then?'",
        "what's the gate made of exactly, just barrels and planks lashed with rope? how high is it",
        "i toss Snik a strip of dried fish from my pack. 'Hungry? What are the other lads in the club called?'",
        "I tell Nettlejaw the magistrate's coming up the road with twenty guards and he wants his hat back",
        "ok fine. I hand over a shiny brass button off my coat as the toll",
        "while they squabble over the button I slip off the road and sneak down the bank under the first arch, looking for a way round the gate",
        "I climb down along the bridge pier to check for boats tied up underneath, smugglers would love a spot like this",
        "ooc - can I use my Lore (river) to know how fast the current is here or is that a survival roll?",
        "back up on the bridge: 'I asked you for the riddle when I walked up, Chief, and I still haven't heard it. Go on then.'",
    ],
    ('lantern_house', 'Tomás'): [
        "I shake Ruth's hand. 'Tomás Reyes, the Gazette. Miss Quist, when did you last see your father? Was he acting strange at all?'",
        "I find the oil lamp in the cottage and light it, then take a look around the room",
        "how far is it from the cottage to the lighthouse door? and how tall is the tower, roughly",
        "whose boats were the two that went on the rocks? do we know the fishermens names",
        "what's the chain on the door made of, and is there a padlock or is it just wrapped around something inside?",
        "I search the keepers desk for a logbook or letters, anything he wrote in the last week",
        "Back at the start I asked Ruth when she last saw him - I compare what she told me with the last date in the logbook",
        "I tell Ruth I've covered a dozen stories like this and the men always come out fine, just tired. (i haven't, i just want her calmer)",
        "(ooc: do I have flash powder for my camera or did I need to say so earlier?)",
        "I write Ruth a note, 'gone up the outside of the tower, if I'm not back by ten get the constable', leave it on the table, then try to climb up to the lowest window",
    ],
    ('copper_flats', 'Lottie'): [
        "Lottie shoulders through the crowd to the bar. 'Whiskey, and whatever the sheriff's drinking, on me.' how many people in here, roughly?",
        "Evening, Sheriff. Slow night for the law? whats the bartenders name by the way",
        "I sit down at Vane's table and buy in for a small stack. 'Deal me in, Mr. Vane.'",
        "what's the deck look like, new or beat up? and what's the table made of",
        "I play a few hands small and mostly watch his hands and the cards, counting what comes out and looking for how he cheats",
        "I tell Vane I'm the assayer's niece and I'll be helping count the payroll tomorrow, see how he takes that",
        "ooc: since I'm a wild card I get the wild die on every trait roll right? just checkin",
        "how far is the saloons back door from the assay office, and is there a light on over there?",
        "I slip out back and creep over to the assay office to get a look at where someone's been digging",
        "if there's a cellar hatch or a back door I pick the lock with a hairpin. then later back inside: 'Sheriff, like I said when I came in, I'm buying your drinks tonight. So tell me who's digging next door.'",
    ],
}

EIGHTH_SESSIONS = {  # written 2026-12-08 by someone shown only each game's opening scene and sheets, before any reply was seen
    ('drowned_chapel', 'Ilya'): [
        "\"you the keeper? what's your name, and why are you staring at me like that\"",
        "how deep is the water further in, and how far is it from the door to the altar?",
        "i wade in slow with my longsword drawn, feeling ahead with my boots for anything under the surface",
        "\"the bell's humming with no wind. what makes it do that, old woman? and dont say ghosts.\"",
        "ooc: is the cold water gonna matter rules-wise or is it just flavour",
        "i pull out my ledger and write down maren's name. \"you owe me an answer now. that's how this works.\"",
        "i look up at the bell tower. how high is it, and is there anything i could climb to get up there?",
        "\"ten silver for clearing this place, plus anything down here nobody's claimed. deal or not?\"",
        "going back to that humming bell from earlier, does it get louder the closer i get to it?",
        "if whatever's been ringing that bell shows itself, i throw a javelin at it then close in with the longsword",
    ],
    ('broken_bridge', 'Keth'): [
        "\"how much is this toll, and which club are we talking about exactly?\"",
        "how long is the bridge and whats actually broken about it, missing planks or what?",
        "ooc: first time playing pf2e, does talking to them use up any of my actions?",
        "i count the goblins again. the sleeping one, how close is he to the edge of the planks?",
        "\"that's a fine hat, nettlejaw. where'd a chief like you get a hat like that?\"",
        "i crouch and check the mud at the bridge end for tracks, any sign of boats or smugglers passing under",
        "\"i'm hunting smugglers on this river. seen any boats slip under your bridge lately?\"",
        "\"no coin on me, but i know where the river patrol camps tonight. worth more than silver to you, yeah?\"",
        "i sit down on a rock by the road and wait with my arms crossed",
        "that sleepy goblin from before, is he still out? i sneak over quietly and try to lift his spear off him",
    ],
    ('lantern_house', 'Tomás'): [
        "\"mrs quist, why won't you come in? what happend in here?\"",
        "i step inside and leave the door wide open behind me",
        "how big is the room, and is it really just the two chairs at that table?",
        "i walk over to the logbook without touching it and read whatever page it's open to",
        "is there food on those plates? if there is, how old does it look",
        "ooc: does tomás have his camera on him? sheet only mentions the borrowed car lol",
        "i hold my hand over the stove to see if there's any warmth left at all",
        "\"i'm with the paper, ruth. they pay good for a story. who lived here and whose logbook is that?\"",
        "i check the window latch and look out at the lighthouse. how far is it, and is there a path?",
        "i flip back through that logbook to the last dated entry and read it out loud to ruth, watching her face",
    ],
    ('copper_flats', 'Dutch'): [
        "i walk slow to the bar and take the stool right next to the sheriff",
        "\"evenin sheriff. you always this quiet, or just when vane's in the room?\"",
        "how many folks are in here besides vane and tull, and any of them wearing iron?",
        "\"whiskey. and whatever the sheriff's drinkin, on me.\"",
        "i keep an eye on vane's shuffling hand. is he palming cards or is it all show?",
        "ooc: how do bennies work again, do i start with three?",
        "\"mr vane, there's paper on a man in this town. you know his name, and what's it worth to you to tell me?\"",
        "\"you keep smilin at me like that, friend, and we'll see whose evening ends how.\"",
        "the piano player who quit when i walked in, i go over and ask him why he stopped",
        "if vane reaches for anything under that table i kick the table over onto him",
    ],
}



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", "--model", default="local:small")
    parser.add_argument("--out", default=None, help="also write the transcript as Markdown here")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--lines", choices=("first", "new", "third", "fourth", "fifth", "sixth", "seventh", "eighth"), default="first", help="the first forty lines, the forty new ones, the third to the eighth forty")
    args = parser.parse_args()
    model = get_model(args.model)
    out = [f"# Play transcripts ({args.model}, seed {args.seed}, load {os.getloadavg()[0]:.1f})", ""]
    times: list[float] = []
    worded, planned = 0, 0  # acts: replies the model worded from the plan, of all planned (the rest said the plan plainly)
    for (scenario, who), lines in {"first": SESSIONS, "new": NEW_SESSIONS, "third": THIRD_SESSIONS, "fourth": FOURTH_SESSIONS, "fifth": FIFTH_SESSIONS, "sixth": SIXTH_SESSIONS, "seventh": SEVENTH_SESSIONS, "eighth": EIGHTH_SESSIONS}[args.lines].items():
        gm = GameMaster(None, scenario, model, characters=[who], memory=False, seed=args.seed)
        out += [f"## {gm.scenario.title} ({gm.ruleset.name}, {gm.sheets[0].name})", ""]
        for line in lines:
            started = time.perf_counter()
            try:
                reply = gm.step("", line)
            except VgmError as exc:  # what the terminal shows as one [note] line (an attack on no one here, say)
                out += [f"> **{who}:** {line}", ">", f"> [note] {exc}", ""]
                continue
            times.append(time.perf_counter() - started)
            planned += any("planned outcome" in n for n in reply.notes)
            worded += any(n.startswith("narration worded the planned outcome") for n in reply.notes)
            dice = "; ".join(r.line() for r in reply.rolls) + "; ".join(reply.fight[:2])
            out += [f"> **{who}:** {line}", ">", f"> {('`' + dice + '` ') if dice else ''}**GM:** {reply.narration}", ""]
        gm.close()
    times.sort()
    out.append(f"turns {len(times)}, p50 {times[len(times) // 2]:.1f} s, p90 {times[int(len(times) * 0.9)]:.1f} s; "
               f"acts planned {planned}, worded by the model {worded} (the rest said the plan plainly)")
    text = "\n".join(out)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
