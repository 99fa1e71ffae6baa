"""ginrummy: the exact rules of Gin Rummy, a fast meld solver, bots, and tables to play at."""
from .cards import Card, CardError, deck, format_cards, parse_cards
from .melds import Arrangement, arrange, best_arrangements, deadwood, deadwood_by_discard, is_meld

__version__ = "0.1.0"
