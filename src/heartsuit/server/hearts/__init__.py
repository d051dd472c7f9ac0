"""Hearts tables on the site: their protocol, the service that is their only writer, the
table replayed from its event log, the frames a seat is sent, who is at a table, leases
between processes, the endpoint on ``/ws`` and the store.
"""
