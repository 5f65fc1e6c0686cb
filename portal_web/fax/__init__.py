"""The Beta Care fax service (``fax.betacare.test``): a web fax service (RightFax / eFax
style) with a cover sheet, attachments, a directory, a sent log and Beta Care's payer
resources, plus the fax sink that receives each delivered transmission."""
