"""Heart to Heart on the site: its protocol, the service that is the only writer of its
games, the frames a page is sent, statistics, the deal of the day, the Examples page's
game, the endpoint on ``/ws`` and the store.
"""
